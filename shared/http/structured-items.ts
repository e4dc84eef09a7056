// Structured Field bare items (RFC 9651 §3.3: integers, decimals, strings, tokens, byte sequences,
// booleans, dates, display strings), parsed strictly as §4.2.3.1–§4.2.10 say, over a cursor into the
// field value. Pure.

/** An sf bare item (RFC 9651 §3.3). A byte sequence is its decoded bytes; a date, seconds since the epoch. */
export type BareItem =
  | { type: 'integer'; value: number }
  | { type: 'decimal'; value: number }
  | { type: 'string'; value: string }
  | { type: 'token'; value: string }
  | { type: 'binary'; value: Uint8Array }
  | { type: 'boolean'; value: boolean }
  | { type: 'date'; value: number }
  | { type: 'displaystring'; value: string };

/**
 * The revision a field's definition references. RFC 9651 §2: "the types available for use in its
 * value are limited to those defined in that RFC"; RFC 8941 has no Date and no Display String, and
 * an RFC 8941 recipient rejects the whole field holding one.
 */
export type StructuredFieldsRfc = 8941 | 9651;

export interface Cursor {
  readonly text: string;
  pos: number;
  readonly rfc: StructuredFieldsRfc;
}

export function peek(input: Cursor): string {
  return input.text[input.pos] ?? '';
}

export function skip(input: Cursor, chars: string): void {
  while (input.pos < input.text.length && chars.includes(peek(input))) input.pos++;
}

export const LCALPHA = /[a-z]/;
const ALPHA = /[A-Za-z]/;
const DIGIT = /[0-9]/;
/** §4.2.3.3 key: ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" ) */
export const KEY_CHAR = /[a-z0-9_\-.*]/;
/** §4.2.6: tchar / ":" / "/" (RFC 9110 §5.6.2 tchar). */
const TOKEN_CHAR = /[A-Za-z0-9!#$%&'*+\-.^_`|~:/]/;
const TOKEN = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*$/;
/**
 * §4.2.7 step 6: only ALPHA, DIGIT, "+", "/" and "="; and, for step 7's base64 decoding (RFC 4648
 * §4), "=" only as padding: at the end, at most two. `:=aGVsbG8=:` and `:a=GVsbG8=:` fail.
 */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** §4.2.10: a `%` escape whose two characters are "not in 0-9 or lowercase a-f" fails (`%C3`). */
const LOWER_HEX = /^[0-9a-f]{2}$/;

/** §3.3.4: whether `value` can be written as a Token: ALPHA or "*", then tchar, ":" or "/". */
export function isToken(value: string): boolean {
  return TOKEN.test(value);
}

export function parseBareItem(input: Cursor): BareItem | undefined {
  const first = peek(input);
  if (first === '-' || DIGIT.test(first)) return parseNumber(input);
  if (first === '"') return parseString(input);
  if (first === '*' || ALPHA.test(first)) return parseToken(input);
  if (first === ':') return parseByteSequence(input);
  if (first === '?') return parseBoolean(input);
  if (input.rfc === 8941) return undefined; // RFC 8941 §4.2.3.1 step 6: "the item type is unrecognized"
  if (first === '@') return parseDate(input);
  if (first === '%') return parseDisplayString(input);
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

/**
 * §4.2.7. Step 7 decodes "synthesizing padding if necessary": a missing "=" is accepted, as are
 * non-zero pad bits (both SHOULD NOT fail), but padding that is not at the end, more "=" than the
 * last quantum lacks, or a lone sixth of a byte (a length of 4n+1) is not base64 and fails.
 */
function parseByteSequence(input: Cursor): BareItem | undefined {
  input.pos++; // ":"
  const end = input.text.indexOf(':', input.pos);
  if (end === -1) return undefined;
  const encoded = input.text.slice(input.pos, end);
  if (!BASE64.test(encoded)) return undefined;
  const data = encoded.replace(/=+$/, '');
  if (data.length % 4 === 1) return undefined;
  if (data.length !== encoded.length && encoded.length % 4 !== 0) return undefined;
  input.pos = end + 1;
  // atob is the web platform's base64 decoder; after the checks above it cannot throw.
  const binary = atob(data);
  const value = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) value[i] = binary.charCodeAt(i);
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

/** §4.2.9: "@" then an Integer; a Decimal fails. */
function parseDate(input: Cursor): BareItem | undefined {
  input.pos++; // "@"
  const number = parseNumber(input);
  return number?.type === 'integer' ? { type: 'date', value: number.value } : undefined;
}

/**
 * §4.2.10: `%"`, then printable ASCII in which `%` and two lowercase hex digits stand for a byte,
 * up to a DQUOTE; the bytes must be UTF-8 (a BOM is kept: it is content, not a signature).
 */
function parseDisplayString(input: Cursor): BareItem | undefined {
  if (input.text[input.pos + 1] !== '"') return undefined;
  input.pos += 2;
  const bytes: number[] = [];
  while (input.pos < input.text.length) {
    const char = peek(input);
    input.pos++;
    const code = char.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) return undefined;
    if (char === '%') {
      const hex = input.text.slice(input.pos, input.pos + 2);
      if (!LOWER_HEX.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      input.pos += 2;
    } else if (char === '"') {
      return utf8(bytes);
    } else {
      bytes.push(code);
    }
  }
  return undefined;
}

function utf8(bytes: number[]): BareItem | undefined {
  try {
    const value = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
    return { type: 'displaystring', value };
  } catch {
    return undefined; // §4.2.10: "Fail parsing if decoding fails."
  }
}
