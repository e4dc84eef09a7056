import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrongEtag, parseEntityTag, strongMatch, weakMatch } from '../../../shared/http/etag.ts';

/** etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3), as a one-character arbitrary. */
const etagc = fc
  .oneof(
    fc.integer({ min: 0x21, max: 0x21 }),
    fc.integer({ min: 0x23, max: 0x7e }),
    fc.integer({ min: 0x80, max: 0xff }),
  )
  .map((code) => String.fromCharCode(code));
const strongEtag = fc.string({ unit: etagc, maxLength: 20 }).map((tag) => `"${tag}"`);

describe('isStrongEtag (RFC 9110 §8.8.3: entity-tag = [ weak ] opaque-tag)', () => {
  it('accepts a quoted opaque-tag', () => {
    expect(isStrongEtag('"abc"')).toBe(true);
    expect(isStrongEtag('"d41d8cd98f00b204e9800998ecf8427e-12"')).toBe(true);
  });

  it('accepts the empty opaque-tag "" (etagc is zero or more characters)', () => {
    expect(isStrongEtag('""')).toBe(true);
  });

  it('accepts obs-text inside the quotes', () => {
    expect(isStrongEtag('"\u0080caf\u00e9\u00ff"')).toBe(true);
  });

  it('refuses a weak tag, which does not promise the same bytes (§8.8.1)', () => {
    expect(isStrongEtag('W/"abc"')).toBe(false);
    expect(isStrongEtag('w/"abc"')).toBe(false);
  });

  it('refuses no ETag at all', () => {
    expect(isStrongEtag(null)).toBe(false);
    expect(isStrongEtag('')).toBe(false);
  });

  it('refuses an unquoted or half-quoted tag', () => {
    expect(isStrongEtag('abc')).toBe(false);
    expect(isStrongEtag('"abc')).toBe(false);
    expect(isStrongEtag('abc"')).toBe(false);
    expect(isStrongEtag('"')).toBe(false);
  });

  it('refuses a DQUOTE inside the tag', () => {
    expect(isStrongEtag('"a"b"')).toBe(false);
    expect(isStrongEtag('"a", "b"')).toBe(false);
  });

  it('refuses whitespace, control characters and DEL, which are not etagc', () => {
    for (const bad of ['"a b"', '"a\tb"', '"a\u0000b"', '"a\u001fb"', '"a\u007fb"', ' "abc"', '"abc" ']) {
      expect(isStrongEtag(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('refuses characters beyond obs-text', () => {
    expect(isStrongEtag('"\u0100"')).toBe(false);
    expect(isStrongEtag('"😀"')).toBe(false);
  });

  it('accepts every quoted run of etagc, and no weak form of it', () => {
    fc.assert(
      fc.property(strongEtag, (etag) => {
        expect(isStrongEtag(etag)).toBe(true);
        expect(isStrongEtag(`W/${etag}`)).toBe(false);
      }),
    );
  });

  it('accepts no string that is not DQUOTE *etagc DQUOTE', () => {
    // The grammar written out character by character, independently of the source's regex.
    const isEtagc = (code: number): boolean =>
      code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
    const grammar = (value: string): boolean =>
      value.length >= 2 &&
      value.startsWith('"') &&
      value.endsWith('"') &&
      [...value.slice(1, -1)].every((char) => isEtagc(char.codePointAt(0) ?? -1));
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: fc.constantFrom('"', 'W', '/', 'a', ' ', '\u007f', '\u00e9'), maxLength: 8 }),
    );
    fc.assert(
      fc.property(text, (value) => {
        expect(isStrongEtag(value)).toBe(grammar(value));
      }),
    );
  });
});

describe('strongMatch and weakMatch (RFC 9110 §8.8.3.2)', () => {
  it('follow the table of §8.8.3.2', () => {
    expect([strongMatch('W/"1"', 'W/"1"'), weakMatch('W/"1"', 'W/"1"')]).toEqual([false, true]);
    expect([strongMatch('W/"1"', 'W/"2"'), weakMatch('W/"1"', 'W/"2"')]).toEqual([false, false]);
    expect([strongMatch('W/"1"', '"1"'), weakMatch('W/"1"', '"1"')]).toEqual([false, true]);
    expect([strongMatch('"1"', '"1"'), weakMatch('"1"', '"1"')]).toEqual([true, true]);
  });

  it('match nothing that is no entity-tag', () => {
    expect(parseEntityTag('abc')).toBeUndefined();
    expect(weakMatch('abc', 'abc')).toBe(false);
  });
});
