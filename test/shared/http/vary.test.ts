import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  indexedCodings,
  indexedFields,
  indexHeaders,
  reselecting,
  variantKey,
  variantLookups,
  variantPlace,
  varyFieldNames,
} from '../../../shared/http/vary.ts';
import { readStoredCodings } from '../../../shared/http/vary-codings.ts';

const KEY = 'https://cdn.example/page.html';

describe('varyFieldNames (RFC 9110 §12.5.5)', () => {
  it('lists the Vary field names trimmed, lowercased and once each', () => {
    expect(varyFieldNames(' Accept-Encoding ,Origin,, accept-encoding ')).toEqual(['accept-encoding', 'origin']);
  });

  it('is empty without Vary, and keeps * as it is', () => {
    expect(varyFieldNames(null)).toEqual([]);
    expect(varyFieldNames('Accept, *')).toEqual(['accept', '*']);
  });
});

describe('variantKey (RFC 9111 §4.1)', () => {
  const key = (fields: string[], request: Record<string, string>) => variantKey(KEY, fields, new Headers(request));

  it('is the same for requests whose selecting values are the same, after list whitespace is normalised', () => {
    expect(key(['accept-language'], { 'accept-language': 'fr, de' })).toBe(
      key(['accept-language'], { 'accept-language': 'fr,de' }),
    );
    expect(key(['accept-language', 'accept'], { accept: 'a', 'accept-language': 'b' })).toBe(
      key(['accept', 'accept-language'], { 'accept-language': 'b', accept: 'a' }),
    );
  });

  it('differs when a value differs, and an absent field matches only its absence (§4.1), not an empty one', () => {
    expect(key(['accept-language'], { 'accept-language': 'fr' })).not.toBe(
      key(['accept-language'], { 'accept-language': 'de' }),
    );
    expect(key(['x-variant'], {})).not.toBe(key(['x-variant'], { 'x-variant': '' }));
  });

  it('ignores request fields the response does not vary on', () => {
    expect(key(['accept-language'], { 'accept-language': 'fr', cookie: 'a' })).toBe(
      key(['accept-language'], { 'accept-language': 'fr', cookie: 'b' }),
    );
  });

  it('is undefined when the values are too long to key by (then nothing is stored)', () => {
    expect(key(['x-big'], { 'x-big': 'a'.repeat(4096) })).toBeUndefined();
  });

  it('is undefined for a Vary naming what is not a field name (RFC 9110 §5.1: a token), never a throw', () => {
    expect(key(['a:b'], {})).toBeUndefined();
    expect(key(['accept', 'x y'], { accept: 'a' })).toBeUndefined();
  });

  it('with a coding, writes Accept-Encoding as it: a key no request value writes', () => {
    const fields = ['accept-encoding', 'accept-language'];
    const coded = variantKey(KEY, fields, new Headers({ 'accept-language': 'fr', 'accept-encoding': 'x' }), 'gzip');
    expect(coded).toBe(variantKey(KEY, fields, new Headers({ 'accept-language': 'fr' }), 'gzip'));
    expect(coded).not.toBe(variantKey(KEY, fields, new Headers({ 'accept-language': 'de' }), 'gzip'));
    const value = fc.string({ unit: fc.constantFrom('g', 'z', 'i', 'p', ':', '=', '!', ',', ' ', ';'), maxLength: 10 });
    fc.assert(
      fc.property(
        value,
        fc.constantFrom('br' as const, 'zstd' as const, 'gzip' as const, 'identity' as const),
        (v, c) => {
          const exact = key(['accept-encoding'], { 'accept-encoding': v.trim() });
          expect(exact).not.toBe(variantKey(KEY, ['accept-encoding'], new Headers(), c));
          expect(key(['accept-encoding'], {})).not.toBe(variantKey(KEY, ['accept-encoding'], new Headers(), c));
        },
      ),
    );
  });

  it('never gives two different selecting values the same key (no hashing: no crafted collision)', () => {
    const value = fc.string({ unit: fc.constantFrom('a', 'b', ',', ' ', '=', '!', ';', '%'), maxLength: 12 });
    fc.assert(
      fc.property(value, value, (a, b) => {
        const norm = (v: string) =>
          v
            .split(',')
            .map((m) => m.trim())
            .join(',');
        const ka = key(['x'], { x: a.trim() });
        const kb = key(['x'], { x: b.trim() });
        if (norm(a.trim()) !== norm(b.trim())) expect(ka).not.toBe(kb);
      }),
    );
  });
});

describe('index entries', () => {
  it('name their fields and are told apart from an object entry', () => {
    expect(indexedFields(indexHeaders(['accept-language', 'accept']))).toEqual(['accept-language', 'accept']);
    expect(indexedFields(new Headers({ 'content-type': 'text/html' }))).toBeUndefined();
  });

  it('record the codings stored when the object varies on Accept-Encoding', () => {
    const index = indexHeaders(['accept-encoding'], readStoredCodings('gzip, identity=gzip'));
    expect(index.get('x-tiercache-vary-codings')).toBe('gzip, identity=gzip');
    expect(indexedCodings(index)).toEqual(readStoredCodings('gzip, identity=gzip'));
    expect(indexHeaders(['accept'], readStoredCodings('gzip')).has('x-tiercache-vary-codings')).toBe(false);
    expect(indexedCodings(new Headers({ 'x-tiercache-vary-codings': 'gzip' })).compressions.size).toBe(0);
  });
});

describe('variantLookups and variantPlace: Accept-Encoding by coding (vary-codings.ts)', () => {
  const FIELDS = ['accept-encoding', 'accept-language'];
  const request = (accept: string | undefined) =>
    new Headers({ 'accept-language': 'fr', ...(accept === undefined ? {} : { 'accept-encoding': accept }) });
  const index = indexHeaders(FIELDS, readStoredCodings('br, gzip'));
  const coded = (coding: 'br' | 'gzip' | 'identity') => variantKey(KEY, FIELDS, request(undefined), coding);

  it('a request looks up the stored codings it accepts, best first, then its exact key', () => {
    expect(variantLookups(KEY, FIELDS, request('gzip, br'), index)).toEqual({
      served: [coded('br'), coded('gzip')],
      exact: variantKey(KEY, FIELDS, request('gzip, br')),
    });
    expect(variantLookups(KEY, FIELDS, request('gzip;q=0'), index).served).toEqual([]);
    expect(variantLookups(KEY, FIELDS, request('gzip;foo=1'), index).served).toEqual([]);
    expect(variantLookups(KEY, ['accept-language'], request('gzip'), index).served).toEqual([]);
  });

  it('a 200 in a keyed coding is placed under it; anything else under the exact key', () => {
    const gzip = new Headers({ 'content-encoding': 'gzip' });
    expect(variantPlace(KEY, FIELDS, request('gzip, br'), 200, gzip)).toEqual({
      key: coded('gzip'),
      coding: { coding: 'gzip', weights: { br: 1, zstd: 0, gzip: 1, identity: 0.0005 } },
    });
    expect(variantPlace(KEY, FIELDS, request('br'), 200, new Headers())?.key).toBe(coded('identity'));
    const exact = variantKey(KEY, FIELDS, request('gzip, br'));
    expect(variantPlace(KEY, FIELDS, request('gzip, br'), 404, gzip)).toEqual({ key: exact });
    expect(variantPlace(KEY, FIELDS, request('gzip, br'), 200, new Headers({ 'content-encoding': 'deflate' }))).toEqual(
      { key: exact },
    );
    expect(variantPlace(KEY, FIELDS, request('gzip;x'), 200, gzip)).toEqual({
      key: variantKey(KEY, FIELDS, request('gzip;x')),
    });
    expect(variantPlace(KEY, ['x y'], request('gzip'), 200, gzip)).toBeUndefined();
  });
});

describe('reselecting: a request pinned to a stored coding asks for that coding', () => {
  const varying = (coding?: string) =>
    new Headers({ vary: 'Origin, Accept-Encoding', ...(coding ? { 'content-encoding': coding } : {}) });

  it('names the coding alone, whatever the client sent, and leaves every other field as it was', () => {
    const client = new Headers({ 'accept-encoding': 'br, gzip', cookie: 'a=1' });
    const pinned = reselecting(client, varying('gzip'));
    expect([pinned?.get('accept-encoding'), pinned?.get('cookie')]).toEqual(['gzip', 'a=1']);
    expect(client.get('accept-encoding')).toBe('br, gzip');
    expect(reselecting(client, varying())?.get('accept-encoding')).toBe('identity');
  });

  it('changes nothing when the variant was not chosen by coding', () => {
    const client = new Headers({ 'accept-encoding': 'gzip, deflate' });
    expect(reselecting(client, varying('deflate'))).toBe(client);
    expect(reselecting(client, new Headers({ 'content-encoding': 'gzip' }))).toBe(client);
    const garbled = new Headers({ 'accept-encoding': 'gzip;level=1' });
    expect(reselecting(garbled, varying('gzip'))).toBe(garbled);
    const none = new Headers();
    expect(reselecting(none, varying())).toBe(none);
    expect(reselecting(undefined, varying('gzip'))).toBeUndefined();
  });
});
