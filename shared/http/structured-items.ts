// RFC 8941 §3.3 bare items (integers, decimals, strings, tokens, byte sequences, booleans),
// parsed strictly as §4.2.3.1–§4.2.8 say, over a cursor into the field value. Pure.

/** An sf bare item (RFC 8941 §3.3). Byte sequences keep their base64 text; nothing here decodes them. */
export type BareItem =
  | { type: 'integer'; value: number }
  | { type: 'decimal'; value: number }
  | { type: 'string'; value: string }
  | { type: 'token'; value: string }
  | { type: 'binary'; value: string }
  | { type: 'boolean'; value: boolean };

export interface Cursor {
  readonly text: string;
  pos: number;
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
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

export function parseBareItem(input: Cursor): BareItem | undefined {
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
