import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acceptedCodings,
  acceptedCompressions,
  answerCoding,
  KEYED_CODINGS,
  UNSTATED_IDENTITY,
} from '../../../shared/http/accept-encoding.ts';

const weights = (br: number, zstd: number, gzip: number, identity: number) => ({ br, zstd, gzip, identity });

describe('acceptedCodings (RFC 9110 §12.5.3)', () => {
  it.each([
    // No field: identity alone (§12.5.3 allows any; caches, and this one, take the client's silence as identity).
    [null, weights(0, 0, 0, 1)],
    // An empty value: "the user agent does not want any content coding".
    ['', weights(0, 0, 0, UNSTATED_IDENTITY)],
    [' , ,', weights(0, 0, 0, UNSTATED_IDENTITY)],
    ['gzip', weights(0, 0, 1, UNSTATED_IDENTITY)],
    ['gzip, deflate, br', weights(1, 0, 1, UNSTATED_IDENTITY)],
    ['br, gzip', weights(1, 0, 1, UNSTATED_IDENTITY)],
    ['gzip, deflate, br, zstd', weights(1, 1, 1, UNSTATED_IDENTITY)],
    ['GZIP;Q=0.5, Br;q=1.000', weights(1, 0, 0.5, UNSTATED_IDENTITY)],
    ['gzip ; q=0.25', weights(0, 0, 0.25, UNSTATED_IDENTITY)],
    ['gzip;q=0.', weights(0, 0, 0, UNSTATED_IDENTITY)],
    ['br;q=1.', weights(1, 0, 0, UNSTATED_IDENTITY)],
    // §8.4.1.3: x-gzip is gzip.
    ['x-gzip', weights(0, 0, 1, UNSTATED_IDENTITY)],
    // q=0: not acceptable.
    ['gzip;q=0, br', weights(1, 0, 0, UNSTATED_IDENTITY)],
    ['identity;q=0, gzip', weights(0, 0, 1, 0)],
    // "*" matches any coding not listed; identity too, unless listed itself.
    ['*', weights(1, 1, 1, 1)],
    ['*;q=0', weights(0, 0, 0, 0)],
    ['*;q=0, identity', weights(0, 0, 0, 1)],
    ['br, *;q=0.1', weights(1, 0.1, 0.1, 0.1)],
    ['gzip;q=0, *', weights(1, 1, 0, 1)],
    ['identity;q=0.5', weights(0, 0, 0, 0.5)],
    // Codings it does not key by count for nothing here (an answer in one is keyed exactly: vary.ts).
    ['deflate, compress, sdch', weights(0, 0, 0, UNSTATED_IDENTITY)],
    ['gzip,,br', weights(1, 0, 1, UNSTATED_IDENTITY)],
  ])('%j', (value, expected) => {
    expect(acceptedCodings(value)).toEqual(expected);
  });

  it.each([
    'gzip;q=2',
    'gzip;q=1.5',
    'gzip;q=0.1234',
    'gzip;q=',
    'gzip;q=.5',
    'gzip;q=-0',
    'gzip;level=9',
    'gzip;q=0.5;x=1',
    'gzip q=0.5',
    'gzip;',
    '"gzip"',
    'gz ip',
    'gzip, gzip',
    'gzip, x-gzip;q=0',
    'br, BR;q=0',
    'gzip/1',
  ])('%j does not read: the request is keyed by its exact value', (value) => {
    expect(acceptedCodings(value)).toBeUndefined();
  });

  it('reads any value safely: undefined, or weights in [0, 1] where a listed q=0 is 0 and a listed coding is its q', () => {
    const coding = fc.constantFrom('br', 'zstd', 'gzip', 'x-gzip', 'identity', '*', 'deflate', 'BR', 'Gzip');
    const q = fc.constantFrom('', ';q=0', ';q=1', ';q=0.5', ';q=0.001', ' ; q=0.9', ';q=1.0', ';q=7', ';x=1');
    const member = fc.tuple(coding, q).map(([name, weight]) => `${name}${weight}`);
    const value = fc.oneof(
      fc.array(member, { maxLength: 6 }).map((members) => members.join(', ')),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(value, (text) => {
        const read = acceptedCodings(text);
        if (read === undefined) return;
        for (const name of KEYED_CODINGS) expect(read[name]).toBeGreaterThanOrEqual(0);
        for (const name of KEYED_CODINGS) expect(read[name]).toBeLessThanOrEqual(1);
        for (const raw of text.split(',')) {
          const [name = '', ...params] = raw.split(';').map((part) => part.trim().toLowerCase());
          const listed = name === 'x-gzip' ? 'gzip' : name;
          const stated = params.length === 0 ? 1 : Number(params[0]?.replace(/^q=/, ''));
          if (KEYED_CODINGS.some((known) => known === listed))
            expect(read[listed as (typeof KEYED_CODINGS)[number]]).toBe(stated);
        }
      }),
    );
  });

  it('a coding refused (q=0) is never accepted, wherever the refusal stands and whatever else the value says', () => {
    const others = ['gzip', 'br', 'zstd', 'identity', '*', 'deflate', '*;q=0.5', 'identity;q=0.2', 'x-gzip;q=1'];
    const value = fc.tuple(fc.constantFrom(...KEYED_CODINGS), fc.subarray(others), fc.nat());
    fc.assert(
      fc.property(value, ([refused, rest, at]) => {
        const name = (member: string): string => member.split(';')[0]?.replace('x-gzip', 'gzip') ?? '';
        // Each coding once (a value naming one twice does not read), the refused one only in its refusal.
        const members = rest.filter((m, i) => name(m) !== refused && rest.findIndex((o) => name(o) === name(m)) === i);
        members.splice(at % (members.length + 1), 0, `${refused};q=0`);
        expect(acceptedCodings(members.join(', '))?.[refused]).toBe(0);
      }),
    );
  });

  it('acceptedCompressions: the compressions with q>0', () => {
    expect(acceptedCompressions(weights(1, 0, 0.5, 1))).toEqual(['br', 'gzip']);
    expect(acceptedCompressions(weights(0, 0, 0, 1))).toEqual([]);
  });
});

describe('answerCoding (RFC 9110 §8.4)', () => {
  it.each([
    [null, 'identity'],
    ['identity', 'identity'],
    ['gzip', 'gzip'],
    [' GZIP ', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br', 'br'],
    ['zstd', 'zstd'],
    ['deflate', undefined],
    ['compress', undefined],
    ['gzip, br', undefined],
    ['', undefined],
    ['aes128gcm', undefined],
  ])('%j is %j', (value, coding) => {
    expect(answerCoding(value)).toBe(coding);
  });
});
