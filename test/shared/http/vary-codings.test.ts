import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptedCodings, KEYED_CODINGS, type Weights } from '../../../shared/http/accept-encoding.ts';
import {
  formatStoredCodings,
  readStoredCodings,
  type StoredCodings,
  servedCodings,
  withStored,
} from '../../../shared/http/vary-codings.ts';

const accept = (value: string | null): Weights => acceptedCodings(value) ?? expect.unreachable(`${value} reads`);
const stored = (record: string): StoredCodings => readStoredCodings(record);

describe('the index record of the codings stored', () => {
  it.each([
    ['gzip', 'gzip'],
    ['gzip, br', 'br, gzip'],
    ['identity=', 'identity='],
    ['br, identity=gzip+br', 'br, identity=br+gzip'],
    // What does not read is not stored (a miss, which stores it again): never another coding.
    ['deflate, identity=gzip+deflate, gzip', 'gzip'],
    ['identity, br', 'br'],
    ['', ''],
  ])('%j reads as %j', (record, again) => {
    expect(formatStoredCodings(readStoredCodings(record))).toBe(again);
  });

  it('reads back what it writes', () => {
    const compression = fc.constantFrom('br' as const, 'zstd' as const, 'gzip' as const);
    const codings = fc.record({
      compressions: fc.uniqueArray(compression).map((list) => new Set(list)),
      identityOffered: fc.option(
        fc.uniqueArray(compression).map((list) => new Set(list)),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(codings, (record) => {
        expect(readStoredCodings(formatStoredCodings(record))).toEqual(record);
      }),
    );
  });

  it('withStored adds a compression, and grows the compressions offered with identity', () => {
    const gzip = withStored(stored(''), 'gzip', accept('gzip'));
    expect(formatStoredCodings(gzip)).toBe('gzip');
    const plain = withStored(gzip, 'identity', accept(null));
    expect(formatStoredCodings(plain)).toBe('gzip, identity=');
    const offered = withStored(plain, 'identity', accept('br;q=0.5, gzip;q=0'));
    expect(formatStoredCodings(offered)).toBe('gzip, identity=br');
    expect(formatStoredCodings(withStored(offered, 'identity', accept('zstd')))).toBe('gzip, identity=br+zstd');
  });
});

describe('servedCodings: the stored codings a request may be served, best first', () => {
  it.each([
    ['gzip', 'br, gzip', ['gzip']],
    ['gzip, deflate, br', 'br, gzip', ['br', 'gzip']],
    ['br;q=0.5, gzip', 'br, gzip', ['gzip', 'br']],
    ['br, gzip, zstd', 'br, zstd, gzip', ['br', 'zstd', 'gzip']],
    ['gzip;q=0', 'gzip', []],
    ['br', 'gzip', []],
    ['*', 'zstd', ['zstd']],
    ['*;q=0', 'gzip, identity=', []],
    // Identity: stored from requests offering no compression, served to those only.
    [null, 'identity=', ['identity']],
    ['identity', 'identity=', ['identity']],
    ['gzip', 'identity=', []],
    ['gzip;q=0, br;q=0', 'identity=', ['identity']],
    // Stored though gzip was offered: served to clients accepting gzip at most.
    ['gzip, deflate', 'identity=gzip', ['identity']],
    ['br, gzip', 'identity=gzip', []],
    ['br, gzip', 'identity=br+gzip', ['identity']],
    // A compression the client names beats identity left unstated; a stated identity weight counts as stated.
    ['gzip', 'gzip, identity=gzip', ['gzip', 'identity']],
    ['gzip;q=0.5, identity', 'gzip, identity=gzip', ['identity', 'gzip']],
    ['identity;q=0, gzip', 'gzip, identity=gzip', ['gzip']],
  ])('%j among %j: %j', (value, record, expected) => {
    expect(servedCodings(accept(value), stored(record))).toEqual(expected);
  });

  it('serves only codings stored, each acceptable (q>0), in non-increasing weight', () => {
    const member = fc.constantFrom('br', 'zstd', 'gzip', 'identity', '*', 'deflate');
    const q = fc.constantFrom('', ';q=0', ';q=0.3', ';q=0.7', ';q=1');
    const value = fc
      .uniqueArray(member)
      .chain((names) =>
        fc.tuple(...names.map((name) => q.map((weight) => `${name}${weight}`))).map((members) => members.join(', ')),
      );
    const record = fc.constantFrom('', 'gzip', 'br, gzip', 'br, zstd, gzip, identity=', 'gzip, identity=gzip+br+zstd');
    fc.assert(
      fc.property(value, record, (text, held) => {
        const weights = accept(text);
        const served = servedCodings(weights, stored(held));
        for (const coding of served) {
          expect(weights[coding]).toBeGreaterThan(0);
          expect(held.split(', ').some((m) => m.split('=')[0] === coding)).toBe(true);
        }
        for (let i = 1; i < served.length; i++)
          expect(weights[served[i - 1] ?? 'identity']).toBeGreaterThanOrEqual(weights[served[i] ?? 'identity']);
        expect(new Set(served).size).toBe(served.length);
        expect(served.every((coding) => KEYED_CODINGS.includes(coding))).toBe(true);
      }),
    );
  });
});
