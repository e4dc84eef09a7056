// One object's origin answers as the two proxies of bench:egress saw them (bench/report/origin-answers.ts): paired by
// what was asked, sent and received folded apart, an answer cut on either side said so. No processes.
import { describe, expect, it } from 'vitest';
import type { OriginResponse } from '../../../bench/probes/origin-ledger.ts';
import { originAnswers } from '../../../bench/report/origin-answers.ts';

const MIB = 2 ** 20;

function answer(range: string, start: number, bodyBytes: number, complete: boolean): OriginResponse {
  return {
    method: 'GET',
    path: '/assets/a.bin',
    query: '',
    range,
    status: 206,
    contentRange: `bytes ${start}-${start + 8 * MIB - 1}/${24 * MIB}`,
    bodyBytes,
    complete,
    startedAt: 0,
    endedAt: 1,
  };
}

describe('originAnswers', () => {
  it('folds what was sent and what was received apart, and pairs each answer by its Range', () => {
    const first = 'bytes=0-8388607';
    const atOrigin = [answer(first, 0, 8 * MIB, true), answer(first, 0, 8 * MIB, true)];
    const atShield = [answer(first, 0, MIB, false), answer(first, 0, 8 * MIB, true)];
    const folded = originAnswers(atOrigin, atShield);
    expect(folded.sent).toMatchObject({ sentBytes: 16 * MIB, repeatedBytes: 8 * MIB });
    expect(folded.received).toMatchObject({ sentBytes: 9 * MIB, repeatedBytes: MIB });
    expect(folded.responses).toBe(2);
    expect(folded.cut).toBe(1);
    expect(folded.detail).toEqual([
      'GET bytes=0-8388607 → 206 bytes 0-8388607/25165824, 8.39 MB sent, 1.05 MB received, cut',
      'GET bytes=0-8388607 → 206 bytes 0-8388607/25165824, 8.39 MB sent, 8.39 MB received',
    ]);
  });

  it('counts a HEAD as an answer with no bytes', () => {
    const head: OriginResponse = { ...answer('', 0, 0, true), method: 'HEAD', status: 200 };
    delete head.range;
    delete head.contentRange;
    const folded = originAnswers([head], [head]);
    expect(folded).toMatchObject({ responses: 1, cut: 0, sent: { sentBytes: 0 } });
    expect(folded.detail).toEqual(['HEAD whole → 200, 0.00 MB sent, 0.00 MB received']);
  });
});
