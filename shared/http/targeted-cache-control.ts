// Targeted cache-control fields (RFC 9213): CDN-Cache-Control and fields like it, which carry
// Cache-Control directives aimed at one class of caches. A tier reads the first field of its
// target list that holds a valid, non-empty Dictionary instead of Cache-Control and Expires,
// mapped to the same CacheControl value the rest of the policy reads. No I/O.

import { type CacheControl, parseCacheControl } from './cache-control.ts';

/**
 * Tiercache's target list (RFC 9213 §2.2), most specific first: a field for tiercache alone,
 * then the one for every CDN.
 */
export const TIERCACHE_TARGETS = ['tiercache-cache-control', 'cdn-cache-control'] as const;

export interface EffectiveCacheControl {
  /** The directives the cache obeys for this response. */
  cc: CacheControl;
  /** Where they came from: a targeted field's (lowercase) name, or 'cache-control'. */
  source: string;
  /** Whether Expires is to be ignored: it is whenever a targeted field is used (RFC 9213 §2.2). */
  ignoreExpires: boolean;
}

/**
 * RFC 9213 §2.2: "the cache MUST select the first (in target list order) field with a valid,
 * non-empty value and use its value to determine the caching policy for the response, and it
 * MUST ignore the Cache-Control and Expires header fields in that response, unless no valid,
 * non-empty value is available from the listed header fields."
 * `targeted` holds lowercase field names in precedence order.
 */
export function effectiveCacheControl(headers: Headers, targeted: readonly string[] = []): EffectiveCacheControl {
  for (const name of targeted) {
    const value = headers.get(name);
    if (value === null) continue;
    // §2.1: "If a targeted field in a given response is empty, or a parsing error is
    // encountered, that field MUST be ignored by the cache".
    const dictionary = parseDictionary(value);
    if (dictionary === undefined || dictionary.size === 0) continue;
    return { cc: toCacheControl(dictionary), source: name.toLowerCase(), ignoreExpires: true };
  }
  return { cc: parseCacheControl(headers.get('cache-control')), source: 'cache-control', ignoreExpires: false };
}

/**
 * The targeted fields a tier removes from a response before it goes on, by where it goes.
 * Tiercache-Cache-Control is for tiercache alone: kept between the shield and the edge (both
 * read it), removed before a client sees it, as Cloudflare does with its own
 * Cloudflare-CDN-Cache-Control ("Cloudflare does not proxy Cloudflare-CDN-Cache-Control
 * downstream because it's a header only used to control Cloudflare",
 * developers.cloudflare.com/cache/concepts/cdn-cache-control/). CDN-Cache-Control is passed on:
 * RFC 9213 §3, CDNs "will typically forward this header so that downstream CDN caches can use
 * it as well" (another CDN may sit between us and the client), and Cloudflare proxies it too.
 */
export function targetedFieldsToStrip(hop: 'client' | 'tier' = 'client'): readonly string[] {
  return hop === 'client' ? TIERCACHE_ONLY : [];
}

const TIERCACHE_ONLY: readonly string[] = ['tiercache-cache-control'];

// --- RFC 8941 Dictionary ------------------------------------------------------------------

/** An sf bare item (RFC 8941 §3.3). Byte sequences keep their base64 text; nothing here decodes them. */
export type BareItem =
  | { type: 'integer'; value: number }
  | { type: 'decimal'; value: number }
  | { type: 'string'; value: string }
  | { type: 'token'; value: string }
  | { type: 'binary'; value: string }
  | { type: 'boolean'; value: boolean };

export type Parameters = ReadonlyMap<string, BareItem>;
export interface Item {
  kind: 'item';
  item: BareItem;
  params: Parameters;
}
export interface InnerList {
  kind: 'inner-list';
  items: readonly Item[];
  params: Parameters;
}
export type DictionaryMember = Item | InnerList;

/**
 * Parses a field value as an sf-dictionary, strictly, by the algorithm of RFC 8941 §4.2 and
 * §4.2.2; undefined on any parse error (§4.2: "fail parsing", the whole field is invalid).
 * Never throws. A repeated key takes its last value, as §4.2.2 says ("overwrite its value"),
 * unlike Cache-Control's first occurrence.
 */
export function parseDictionary(value: string): ReadonlyMap<string, DictionaryMember> | undefined {
  const input: Cursor = { text: value, pos: 0 };
  // §4.2: discard leading SP; the Dictionary loop below consumes the rest or fails.
  skip(input, ' ');
  const dictionary = new Map<string, DictionaryMember>();
  while (input.pos < input.text.length) {
    const key = parseKey(input);
    if (key === undefined) return undefined;
    let member: DictionaryMember | undefined;
    if (peek(input) === '=') {
      input.pos++;
      member = peek(input) === '(' ? parseInnerList(input) : parseItem(input);
    } else {
      const params = parseParameters(input);
      member = params && { kind: 'item', item: { type: 'boolean', value: true }, params };
    }
    if (member === undefined) return undefined;
    dictionary.set(key, member);
    skip(input, ' \t');
    if (input.pos >= input.text.length) return dictionary;
    if (peek(input) !== ',') return undefined;
    input.pos++;
    skip(input, ' \t');
    // A trailing comma is a parse error.
    if (input.pos >= input.text.length) return undefined;
  }
  return dictionary;
}

interface Cursor {
  readonly text: string;
  pos: number;
}

function peek(input: Cursor): string {
  return input.text[input.pos] ?? '';
}

function skip(input: Cursor, chars: string): void {
  while (input.pos < input.text.length && chars.includes(peek(input))) input.pos++;
}

const LCALPHA = /[a-z]/;
const ALPHA = /[A-Za-z]/;
const DIGIT = /[0-9]/;
/** §4.2.3.3 key: ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" ) */
const KEY_CHAR = /[a-z0-9_\-.*]/;
/** §4.2.6: tchar / ":" / "/" (RFC 9110 §5.6.2 tchar). */
const TOKEN_CHAR = /[A-Za-z0-9!#$%&'*+\-.^_`|~:/]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

function parseKey(input: Cursor): string | undefined {
  const first = peek(input);
  if (first === '' || (!LCALPHA.test(first) && first !== '*')) return undefined;
  const start = input.pos;
  while (input.pos < input.text.length && KEY_CHAR.test(peek(input))) input.pos++;
  return input.text.slice(start, input.pos);
}

/** §4.2.3: bare item, then parameters. */
function parseItem(input: Cursor): Item | undefined {
  const item = parseBareItem(input);
  const params = item && parseParameters(input);
  return item && params && { kind: 'item', item, params };
}

/** §4.2.1.2 */
function parseInnerList(input: Cursor): InnerList | undefined {
  input.pos++; // "("
  const items: Item[] = [];
  while (input.pos < input.text.length) {
    skip(input, ' ');
    if (peek(input) === ')') {
      input.pos++;
      const params = parseParameters(input);
      return params && { kind: 'inner-list', items, params };
    }
    const item = parseItem(input);
    if (item === undefined) return undefined;
    items.push(item);
    const next = peek(input);
    if (next !== ' ' && next !== ')') return undefined;
  }
  return undefined;
}

/** §4.2.3.2 */
function parseParameters(input: Cursor): Map<string, BareItem> | undefined {
  const params = new Map<string, BareItem>();
  while (peek(input) === ';') {
    input.pos++;
    skip(input, ' ');
    const key = parseKey(input);
    if (key === undefined) return undefined;
    let value: BareItem | undefined = { type: 'boolean', value: true };
    if (peek(input) === '=') {
      input.pos++;
      value = parseBareItem(input);
      if (value === undefined) return undefined;
    }
    params.set(key, value);
  }
  return params;
}

/** §4.2.3.1 */
function parseBareItem(input: Cursor): BareItem | undefined {
  const first = peek(input);
  if (first === '-' || DIGIT.test(first)) return parseNumber(input);
  if (first === '"') return parseString(input);
  if (first === '*' || ALPHA.test(first)) return parseToken(input);
  if (first === ':') return parseByteSequence(input);
  if (first === '?') return parseBoolean(input);
  return undefined;
}

/** §4.2.4: at most 15 integer digits; a decimal has at most 12 before and 3 after the point. */
function parseNumber(input: Cursor): BareItem | undefined {
  const start = input.pos;
  if (peek(input) === '-') input.pos++;
  if (!DIGIT.test(peek(input))) return undefined;
  let digits = 0;
  let point = -1;
  while (input.pos < input.text.length) {
    const char = peek(input);
    if (DIGIT.test(char)) {
      digits++;
    } else if (point === -1 && char === '.') {
      if (digits > 12) return undefined;
      point = digits;
    } else {
      break;
    }
    input.pos++;
    if (point === -1 && digits > 15) return undefined;
    if (point !== -1 && digits + 1 > 16) return undefined;
  }
  const text = input.text.slice(start, input.pos);
  if (point === -1) return { type: 'integer', value: Number(text) };
  const fraction = digits - point;
  if (fraction === 0 || fraction > 3) return undefined;
  return { type: 'decimal', value: Number(text) };
}

/** §4.2.5: printable ASCII; only `\"` and `\\` escapes. */
function parseString(input: Cursor): BareItem | undefined {
  input.pos++; // DQUOTE
  let value = '';
  while (input.pos < input.text.length) {
    const char = peek(input);
    input.pos++;
    if (char === '\\') {
      const next = peek(input);
      if (next !== '"' && next !== '\\') return undefined;
      value += next;
      input.pos++;
    } else if (char === '"') {
      return { type: 'string', value };
    } else {
      const code = char.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) return undefined;
      value += char;
    }
  }
  return undefined;
}

/** §4.2.6 */
function parseToken(input: Cursor): BareItem {
  const start = input.pos;
  input.pos++;
  while (input.pos < input.text.length && TOKEN_CHAR.test(peek(input))) input.pos++;
  return { type: 'token', value: input.text.slice(start, input.pos) };
}

/** §4.2.7 */
function parseByteSequence(input: Cursor): BareItem | undefined {
  input.pos++; // ":"
  const end = input.text.indexOf(':', input.pos);
  if (end === -1) return undefined;
  const value = input.text.slice(input.pos, end);
  for (const char of value) if (!BASE64_CHAR.test(char)) return undefined;
  input.pos = end + 1;
  return { type: 'binary', value };
}

/** §4.2.8 */
function parseBoolean(input: Cursor): BareItem | undefined {
  input.pos++; // "?"
  const char = peek(input);
  if (char !== '0' && char !== '1') return undefined;
  input.pos++;
  return { type: 'boolean', value: char === '1' };
}

// --- Dictionary → CacheControl --------------------------------------------------------------

/** Directives whose argument is delta-seconds: an Integer in a targeted field (RFC 9213 §2.1). */
const DELTA_SECONDS = new Set(['max-age', 's-maxage', 'stale-while-revalidate', 'stale-if-error']);
/** Present with an argument nothing reads as valid: what `max-age=` gives in Cache-Control. */
const INVALID = '';

/**
 * RFC 9213 §2.1 maps directive values onto sf types: no value → Boolean, quoted-string →
 * String, token → Token, Integer or Decimal. Back again: true → true, Integer → its decimal
 * string, String and Token → their text; Boolean false (`max-age=?0`) → the directive is absent.
 * "Implementations SHOULD NOT consume values that violate these inferred constraints": a
 * delta-seconds directive whose value is not an Integer (`max-age="60"`, `max-age=1.5`) is kept
 * present with an invalid argument, so freshness reads it as stale (as `max-age=abc` is in
 * Cache-Control), and is not coerced. "Parameters received on cache directives are to be
 * ignored". Byte sequences and inner lists are no directive's value: present, invalid.
 */
function toCacheControl(dictionary: ReadonlyMap<string, DictionaryMember>): CacheControl {
  const cc = new Map<string, string | true>();
  for (const [name, member] of dictionary) {
    if (member.kind === 'inner-list') {
      cc.set(name, INVALID);
      continue;
    }
    const { item } = member;
    if (item.type === 'boolean') {
      if (item.value) cc.set(name, true);
    } else if (DELTA_SECONDS.has(name)) {
      cc.set(name, item.type === 'integer' ? String(item.value) : INVALID);
    } else if (item.type === 'binary') {
      cc.set(name, INVALID);
    } else {
      cc.set(name, String(item.value));
    }
  }
  return cc;
}
