import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexedFields, indexHeaders, variantKey, varyFieldNames } from '../../../shared/http/vary.ts';

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
});
