import { describe, expect, it } from 'vitest';
import { R2Tally } from '../../../shared/observe/r2-tally.ts';
import { noR2 } from '../../../shared/stats/store-operations.ts';

describe('R2Tally', () => {
  it('counts gets and heads as reads, puts with their bytes and the byte-seconds their retention commits, and lists', () => {
    const tally = new R2Tally();
    tally.read();
    tally.read();
    tally.put(1000, 3600);
    tally.put(500, 0.5);
    tally.listed();
    expect(tally.take()).toEqual({
      r2Gets: 2,
      r2Puts: 2,
      r2PutBytes: 1500,
      r2Lists: 1,
      r2StoredByteSeconds: 1000 * 3600 + 500 * 0.5,
    });
  });

  it('starts afresh at each take', () => {
    const tally = new R2Tally();
    tally.put(10, 10);
    tally.take();
    expect(tally.take()).toEqual(noR2());
  });

  it('commits no storage for a put whose entry has already expired (a retention below 0), its put still counted', () => {
    const tally = new R2Tally();
    tally.put(100, -5);
    expect(tally.take()).toEqual({ ...noR2(), r2Puts: 1, r2PutBytes: 100 });
  });
});
