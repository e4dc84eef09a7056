import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { directiveSeconds } from '../../../shared/http/cache-control.ts';
import { type BareItem, type Member, parseDictionary } from '../../../shared/http/structured-fields.ts';
import {
  effectiveCacheControl,
  TIERCACHE_TARGETS,
  targetedFieldsToStrip,
} from '../../../shared/http/targeted-cache-control.ts';

/** The effective directives as a plain object, so a failure shows the whole mapping. */
function effective(init: Record<string, string> | [string, string][], targets: readonly string[] = TIERCACHE_TARGETS) {
  const { cc, source, ignoreExpires } = effectiveCacheControl(new Headers(init), targets);
  return { cc: Object.fromEntries(cc), source, ignoreExpires };
}

/** The bare values of a parsed Dictionary, parameters left out. */
function values(value: string): Record<string, unknown> | undefined {
  const dictionary = parseDictionary(value);
  if (dictionary === undefined) return undefined;
  return Object.fromEntries(
    [...dictionary].map(([key, member]) => [
      key,
      member.kind === 'item' ? member.item : member.items.map((item) => item.item),
    ]),
  );
}

const int = (value: number): BareItem => ({ type: 'integer', value });
const dec = (value: number): BareItem => ({ type: 'decimal', value });
const str = (value: string): BareItem => ({ type: 'string', value });
const tok = (value: string): BareItem => ({ type: 'token', value });
const bool = (value: boolean): BareItem => ({ type: 'boolean', value });

describe('parseDictionary (RFC 8941 §4.2.2)', () => {
  it('parses members with and without values, of every bare item type (§3.3)', () => {
    expect(values('a=1, b=-2, c=1.5, d="x y", e=tok/en:1, f=:aGk=:, g=?0, h=?1, i')).toEqual({
      a: int(1),
      b: int(-2),
      c: dec(1.5),
      d: str('x y'),
      e: tok('tok/en:1'),
      f: { type: 'binary', value: new TextEncoder().encode('hi') }, // base64 "aGk=" decoded (§4.2.7)
      g: bool(false),
      h: bool(true),
      i: bool(true),
    });
  });

  it('parses inner lists and parameters (§3.1.1, §3.1.2)', () => {
    const dictionary = parseDictionary('a=(1 "two" three);p=?0, b;q=1;r, c=4;s="t"');
    expect(dictionary?.get('a')).toEqual({
      kind: 'inner-list',
      items: [
        { kind: 'item', item: int(1), params: new Map() },
        { kind: 'item', item: str('two'), params: new Map() },
        { kind: 'item', item: tok('three'), params: new Map() },
      ],
      params: new Map([['p', bool(false)]]),
    });
    expect(dictionary?.get('b')).toEqual({
      kind: 'item',
      item: bool(true),
      params: new Map([
        ['q', int(1)],
        ['r', bool(true)],
      ]),
    });
    expect(dictionary?.get('c')).toEqual({ kind: 'item', item: int(4), params: new Map([['s', str('t')]]) });
    expect(values('a=(), b=( 1  2 )')).toEqual({ a: [], b: [int(1), int(2)] });
  });

  it('is an empty Dictionary for an empty value', () => {
    expect(parseDictionary('')?.size).toBe(0);
    expect(parseDictionary('   ')?.size).toBe(0);
  });

  it('accepts leading SP and OWS (SP or HTAB) around the commas', () => {
    expect(values('  a=1 ,\tb=2,c')).toEqual({ a: int(1), b: int(2), c: bool(true) });
  });

  it('keeps the last value of a repeated key (§4.2.2: "overwrite its value")', () => {
    expect(values('max-age=1, max-age=2')).toEqual({ 'max-age': int(2) });
  });

  it('unescapes \\" and \\\\ in strings', () => {
    expect(values('a="x\\"y\\\\z"')).toEqual({ a: str('x"y\\z') });
  });

  it('fails on keys that are not lowercase sf keys (§3.1.2: key = ( lcalpha / "*" ) …)', () => {
    for (const value of ['Max-Age=1', 'MAX-AGE=1', '1a=1', '-a=1', '_a', 'a b', 'é=1', '&&&', '"a"=1']) {
      expect(parseDictionary(value), value).toBeUndefined();
    }
    expect(values('*a.b_c-d*=1')).toEqual({ '*a.b_c-d*': int(1) });
  });

  it('fails on whitespace around "=" (cache-tests cdn-max-age-space-before/after-equals)', () => {
    expect(parseDictionary('max-age =100')).toBeUndefined();
    expect(parseDictionary('max-age= 100')).toBeUndefined();
  });

  it('fails on a trailing comma, an empty member, or a missing comma', () => {
    for (const value of ['a=1,', 'a=1, ', 'a=1,,b=2', ', a=1', 'a=1 b=2', 'a=1;']) {
      expect(parseDictionary(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it('fails on integers longer than 15 digits and decimals past 12.3 digits (§4.2.4)', () => {
    expect(values('a=999999999999999, b=-999999999999999')).toEqual({
      a: int(999_999_999_999_999),
      b: int(-999_999_999_999_999),
    });
    expect(values('a=123456789012.123')).toEqual({ a: dec(123456789012.123) });
    for (const value of [
      'a=1000000000000000',
      'a=1234567890123.1',
      'a=1.1234',
      'a=1.',
      'a=-',
      'a=--1',
      'a=1.2.3',
      'a=.5',
    ]) {
      expect(parseDictionary(value), value).toBeUndefined();
    }
  });

  it('fails on malformed strings, byte sequences, booleans and inner lists', () => {
    for (const value of [
      'a="x',
      'a="\\x"',
      'a="tab\there"',
      'a="é"',
      'a=:aGk',
      'a=:a*b:',
      'a=?2',
      'a=?',
      'a=(1',
      'a=(1,2)',
      'a=(1)x',
      'a=@1',
      'a=%"x"',
      "a='x'",
    ]) {
      expect(parseDictionary(value), value).toBeUndefined();
    }
  });

  it('RFC 9651 §4.2.7: fails on a byte sequence whose "=" is not padding at its end (:=aGVsbG8=:, :a=GVsbG8=:)', () => {
    for (const value of ['a=:=aGVsbG8=:', 'a=:a=GVsbG8=:', 'a=:aGVsbG8==:', 'a=:aGk=aGk=:', 'a=:aGVs=:', 'a=:a:']) {
      expect(parseDictionary(value), value).toBeUndefined();
    }
    // "SHOULD NOT fail when '=' padding is not present", nor on non-zero pad bits.
    expect(values('a=:aGVsbG8:, b=:iZ==:')).toEqual({
      a: { type: 'binary', value: new TextEncoder().encode('hello') },
      b: { type: 'binary', value: new Uint8Array([0x89]) },
    });
  });

  it('fails on non-ASCII anywhere (§4.2: the field is ASCII)', () => {
    expect(parseDictionary('a=1, b=é')).toBeUndefined();
    expect(parseDictionary('a=1\u00a0')).toBeUndefined();
  });
});

describe('effectiveCacheControl (RFC 9213 §2.2)', () => {
  it('uses Cache-Control, with Expires, without a target list', () => {
    expect(effective({ 'cache-control': 'max-age=60', 'cdn-cache-control': 'max-age=600' }, [])).toEqual({
      cc: { 'max-age': '60' },
      source: 'cache-control',
      ignoreExpires: false,
    });
    expect(effectiveCacheControl(new Headers({ 'cdn-cache-control': 'max-age=600' })).source).toBe('cache-control');
  });

  it('uses Cache-Control, with Expires, when no targeted field is present', () => {
    expect(effective({ 'cache-control': 'max-age=60' })).toEqual({
      cc: { 'max-age': '60' },
      source: 'cache-control',
      ignoreExpires: false,
    });
    expect(effective({})).toEqual({ cc: {}, source: 'cache-control', ignoreExpires: false });
  });

  it('uses the first field of the target list that is present, ignoring Cache-Control and Expires', () => {
    const both = {
      'cache-control': 'no-store',
      'cdn-cache-control': 'max-age=600',
      'tiercache-cache-control': 'max-age=60',
    };
    expect(effective(both)).toEqual({
      cc: { 'max-age': '60' },
      source: 'tiercache-cache-control',
      ignoreExpires: true,
    });
    expect(effective({ 'cache-control': 'no-store', 'cdn-cache-control': 'max-age=600' })).toEqual({
      cc: { 'max-age': '600' },
      source: 'cdn-cache-control',
      ignoreExpires: true,
    });
    expect(effective(both, ['cdn-cache-control', 'tiercache-cache-control'])).toMatchObject({
      source: 'cdn-cache-control',
    });
  });

  it('skips a targeted field whose byte sequence has "=" in its middle (RFC 9651 §4.2.7), to Cache-Control (§2.1)', () => {
    expect(effective({ 'cdn-cache-control': 'max-age=600, k=:a=GVsbG8=:', 'cache-control': 'no-store' })).toEqual({
      cc: { 'no-store': true },
      source: 'cache-control',
      ignoreExpires: false,
    });
  });

  it('skips a targeted field holding a Date or Display String: RFC 9213 references RFC 8941, which has neither (RFC 9651 §2)', () => {
    for (const value of ['max-age=600, x=@1659578233', 'max-age=600;at=@0', 'max-age=600, x=%"f%c3%bc"']) {
      expect(effective({ 'cdn-cache-control': value, 'cache-control': 'no-store' }), value).toMatchObject({
        source: 'cache-control',
      });
    }
  });

  it('skips a targeted field that is empty or fails to parse, whole, to the next one or Cache-Control (§2.1)', () => {
    expect(
      effective({ 'tiercache-cache-control': 'max-age=60, &&&', 'cdn-cache-control': 'max-age=600' }),
    ).toMatchObject({ source: 'cdn-cache-control' });
    expect(effective({ 'tiercache-cache-control': '', 'cdn-cache-control': 'max-age=600' })).toMatchObject({
      source: 'cdn-cache-control',
    });
    expect(effective({ 'cdn-cache-control': 'max-age=10000, &&&&&', 'cache-control': 'no-store' })).toEqual({
      cc: { 'no-store': true },
      source: 'cache-control',
      ignoreExpires: false,
    });
    expect(effective({ 'cdn-cache-control': 'MaX-aGe=3600', 'cache-control': 'max-age=1' })).toMatchObject({
      source: 'cache-control',
    });
  });

  it('uses a valid field that holds only unregistered directives (RFC 9213 §3.1: "CDN-Cache-Control: none")', () => {
    expect(effective({ 'cache-control': 'no-store', 'cdn-cache-control': 'none' })).toEqual({
      cc: { none: true },
      source: 'cdn-cache-control',
      ignoreExpires: true,
    });
  });

  it('parses several field lines as one Dictionary (RFC 8941 §4.2: combined with ", ")', () => {
    expect(
      effective([
        ['cdn-cache-control', 'max-age=60'],
        ['cdn-cache-control', 'must-revalidate'],
      ]),
    ).toMatchObject({ cc: { 'max-age': '60', 'must-revalidate': true } });
  });

  it('matches the field name whatever its case on the wire', () => {
    expect(effective({ 'CDN-Cache-Control': 'max-age=60' })).toMatchObject({
      source: 'cdn-cache-control',
      cc: { 'max-age': '60' },
    });
  });
});

describe('effectiveCacheControl: Dictionary members as Cache-Control directives (RFC 9213 §2.1)', () => {
  const cdn = (value: string) => effective({ 'cdn-cache-control': value }).cc;

  it('maps Boolean true to a directive without argument, and Boolean false to an absent one', () => {
    expect(cdn('no-store, public=?1, private=?0, max-age=?0')).toEqual({ 'no-store': true, public: true });
  });

  it('maps an Integer to its decimal string, clamped later by directiveSeconds (cache-tests cdn-max-age-max-plus)', () => {
    expect(cdn('max-age=60, s-maxage=0')).toEqual({ 'max-age': '60', 's-maxage': '0' });
    const cc = effectiveCacheControl(new Headers({ 'cdn-cache-control': 'max-age=99999999999' }), TIERCACHE_TARGETS).cc;
    expect(directiveSeconds(cc, 'max-age')).toBe(2 ** 31);
  });

  it('keeps a negative Integer, which directiveSeconds reads as invalid (stale)', () => {
    const cc = effectiveCacheControl(new Headers({ 'cdn-cache-control': 'max-age=-1' }), TIERCACHE_TARGETS).cc;
    expect(cc.has('max-age')).toBe(true);
    expect(directiveSeconds(cc, 'max-age')).toBeUndefined();
  });

  it('does not coerce a non-Integer delta-seconds: String, Decimal or Token is present but invalid ("SHOULD NOT consume", cache-tests cdn-cc-invalid-sh-type-wrong)', () => {
    for (const value of [
      'max-age="10000"',
      'max-age=1.5',
      'max-age=3600.0',
      'max-age=forever',
      'max-age=:aGk=:',
      'max-age=(1)',
    ]) {
      const cc = effectiveCacheControl(new Headers({ 'cdn-cache-control': value }), TIERCACHE_TARGETS).cc;
      expect(cc.has('max-age'), value).toBe(true);
      expect(directiveSeconds(cc, 'max-age'), value).toBeUndefined();
    }
    expect(cdn('stale-while-revalidate="30", stale-if-error=1.5, s-maxage=x')).toEqual({
      'stale-while-revalidate': '',
      'stale-if-error': '',
      's-maxage': '',
    });
  });

  it('maps String and Token arguments to their text, as for the field lists of no-cache and private', () => {
    expect(cdn('no-cache="set-cookie, x-user", private=x-token, ext=1.25')).toEqual({
      'no-cache': 'set-cookie, x-user',
      private: 'x-token',
      ext: '1.25',
    });
  });

  it('ignores parameters ("Parameters received on cache directives are to be ignored")', () => {
    expect(cdn('max-age=60;unit=s, no-store;why="x"')).toEqual({ 'max-age': '60', 'no-store': true });
  });

  it('takes the last value of a repeated directive, as sf-dictionary does', () => {
    expect(cdn('max-age=600, max-age=60')).toEqual({ 'max-age': '60' });
    expect(cdn('max-age=60, max-age=?0')).toEqual({});
  });

  it('reads the cache-tests CDN-Cache-Control cases the way the suite expects', () => {
    const lifetime = (value: string) =>
      directiveSeconds(
        effectiveCacheControl(
          new Headers({ 'cdn-cache-control': value, 'cache-control': 'no-store' }),
          TIERCACHE_TARGETS,
        ).cc,
        'max-age',
      );
    expect(lifetime('max-age=3600')).toBe(3600);
    expect(lifetime('max-age=2147483648')).toBe(2 ** 31);
    expect(lifetime('foobar, max-age=3600')).toBe(3600);
    expect(lifetime('max-age=0')).toBe(0);
  });
});

describe('targeted fields downstream', () => {
  it('has tiercache first in its own target list, then every CDN', () => {
    expect(TIERCACHE_TARGETS).toEqual(['tiercache-cache-control', 'cdn-cache-control']);
  });

  it('removes Tiercache-Cache-Control before a client sees it, and passes CDN-Cache-Control on (RFC 9213 §3)', () => {
    expect(targetedFieldsToStrip()).toEqual(['tiercache-cache-control']);
    expect(targetedFieldsToStrip('client')).toEqual(['tiercache-cache-control']);
    expect(targetedFieldsToStrip('client')).not.toContain('cdn-cache-control');
  });

  it('keeps both between tiers, where the edge reads them too', () => {
    expect(targetedFieldsToStrip('tier')).toEqual([]);
  });
});

// --- properties ---------------------------------------------------------------------------

const KEY_FIRST = 'abcdefghijklmnopqrstuvwxyz*';
const KEY_REST = `${KEY_FIRST}0123456789_-.`;
const key = fc
  .tuple(fc.constantFrom(...KEY_FIRST), fc.string({ unit: fc.constantFrom(...KEY_REST), maxLength: 10 }))
  .map(([a, b]) => a + b);
const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:/";
const bareItem: fc.Arbitrary<BareItem> = fc.oneof(
  fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }).map(int),
  fc
    .integer({ min: -999_999_999, max: 999_999_999 })
    .map((n) => dec(n / 1000))
    .filter((item) => !Number.isInteger(item.value)),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 12 }).map(str),
  fc
    .tuple(fc.constantFrom(...'abcXYZ*'), fc.string({ unit: fc.constantFrom(...TCHAR), maxLength: 8 }))
    .map(([a, b]) => tok(a + b)),
  fc.boolean().map(bool),
);
function serializeBare(item: BareItem): string {
  switch (item.type) {
    case 'string':
      return `"${item.value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    case 'boolean':
      return item.value ? '?1' : '?0';
    case 'binary':
      return `:${item.value}:`;
    default:
      return String(item.value);
  }
}
const dictionary = fc.uniqueArray(fc.tuple(key, bareItem), { selector: ([k]) => k, maxLength: 8 });
/** Any UTF-16 string, lone surrogates included. */
const anyCodeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });
const sfAlphabet = fc.string({ unit: fc.constantFrom(...'a=1,;?()":* \t-.Z\\'), maxLength: 30 });

describe('targeted-cache-control properties', () => {
  it('parseDictionary never throws, whatever the value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), anyCodeUnits, sfAlphabet), (value) => {
        const parsed = parseDictionary(value);
        if (parsed !== undefined) for (const k of parsed.keys()) expect(k).toMatch(/^[a-z*][a-z0-9_\-.*]*$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back every member of a serialized Dictionary (RFC 8941 §4.1.2)', () => {
    fc.assert(
      fc.property(dictionary, fc.constantFrom(',', ', ', ' ,\t'), (members, separator) => {
        const field = members
          .map(([k, item]) => (item.type === 'boolean' && item.value ? k : `${k}=${serializeBare(item)}`))
          .join(separator);
        const parsed = parseDictionary(field);
        expect(parsed).toBeDefined();
        const expected = new Map<string, Member>(
          members.map(([k, item]) => [k, { kind: 'item', item, params: new Map() }]),
        );
        expect(parsed).toEqual(expected);
      }),
    );
  });

  it('effectiveCacheControl never throws on any field value, and uses a targeted field only when it parses', () => {
    const latin1 = fc.string({
      unit: fc.oneof(
        fc.constant('\t'),
        fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
      ),
      maxLength: 40,
    });
    fc.assert(
      fc.property(fc.oneof(latin1, sfAlphabet), latin1, (targeted, cacheControl) => {
        const headers = new Headers({ 'cdn-cache-control': targeted, 'cache-control': cacheControl });
        const result = effectiveCacheControl(headers, TIERCACHE_TARGETS);
        const parsed = parseDictionary(headers.get('cdn-cache-control') ?? '');
        expect(result.source).toBe(parsed !== undefined && parsed.size > 0 ? 'cdn-cache-control' : 'cache-control');
        expect(result.ignoreExpires).toBe(result.source !== 'cache-control');
        for (const name of result.cc.keys()) directiveSeconds(result.cc, name);
      }),
    );
  });
});
