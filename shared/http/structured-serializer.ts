// RFC 9651 §4.1: Structured Field Values serialized, the inverse of structured-fields.ts. Pure. A value
// the RFC says to "fail serialization" on (an Integer past 15 digits, a String with a control
// character, a key with an upper-case letter) is a programming error here: it throws a RangeError
// naming the clause, as only our own values are serialized. What a peer sent is never re-serialized.

import type { InnerList, Item, Member, Parameters } from './structured-fields.ts';
import { type BareItem, isToken } from './structured-items.ts';

/** §3.3.1: "-999,999,999,999,999 to 999,999,999,999,999 inclusive". */
export const MAX_INTEGER = 999_999_999_999_999;
/** §4.1.5 step 3: at most 12 digits to the left of the decimal point. */
const MAX_DECIMAL_INTEGER_DIGITS = 12;
/** §4.1.5 step 2: three decimal places. */
const DECIMAL_PLACES = 3;
const KEY = /^[a-z*][a-z0-9_\-.*]*$/;

/** §4.1.1. An empty List is the field left out (§4.1 step 1): the empty string here, for the caller to omit. */
export function serializeList(members: readonly Member[]): string {
  return members.map(serializeMember).join(', ');
}

/** §4.1.2. An empty Dictionary is the empty string, as for a List. */
export function serializeDictionary(dictionary: ReadonlyMap<string, Member>): string {
  return [...dictionary]
    .map(([key, member]) => {
      // §4.1.2 step 2.2: a member whose value is Boolean true is written as its key and parameters alone.
      if (member.kind === 'item' && member.item.type === 'boolean' && member.item.value) {
        return serializeKey(key) + serializeParameters(member.params);
      }
      return `${serializeKey(key)}=${serializeMember(member)}`;
    })
    .join(', ');
}

/** §4.1.3 */
export function serializeItem(item: Item): string {
  return serializeBareItem(item.item) + serializeParameters(item.params);
}

/** §4.1.3.1 */
export function serializeBareItem(item: BareItem): string {
  switch (item.type) {
    case 'integer':
      return serializeInteger(item.value);
    case 'decimal':
      return serializeDecimal(item.value);
    case 'string':
      return serializeString(item.value);
    case 'token':
      return serializeToken(item.value);
    case 'binary':
      return serializeByteSequence(item.value);
    case 'boolean':
      return item.value ? '?1' : '?0';
    case 'date':
      return `@${serializeInteger(item.value)}`; // §4.1.10
    case 'displaystring':
      return serializeDisplayString(item.value);
  }
}

/** §4.1.1.3 */
function serializeKey(key: string): string {
  if (!KEY.test(key))
    fail('§4.1.1.3', `${JSON.stringify(key)} is not a key: lcalpha or "*", then lcalpha, DIGIT, "_-.*"`);
  return key;
}

function serializeMember(member: Member): string {
  return member.kind === 'item' ? serializeItem(member) : serializeInnerList(member);
}

/** §4.1.1.1 */
function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(' ')})${serializeParameters(list.params)}`;
}

/** §4.1.1.2: a parameter whose value is Boolean true is written as its key alone. */
function serializeParameters(params: Parameters): string {
  let output = '';
  for (const [key, value] of params) {
    output += `;${serializeKey(key)}`;
    if (value.type !== 'boolean' || !value.value) output += `=${serializeBareItem(value)}`;
  }
  return output;
}

/** §4.1.4 */
function serializeInteger(value: number): string {
  if (!Number.isInteger(value) || Math.abs(value) > MAX_INTEGER) fail('§4.1.4', `${value} is not an Integer`);
  return String(Math.abs(value) === 0 ? 0 : value);
}

/**
 * §4.1.5: rounded to three places, "to the nearest value, or to the even value if it is
 * equidistant", on the number's shortest decimal form, the one it was written as (0.0025 is 0.002,
 * whichever side of 0.0025 its binary double lies); then at most 12 integer digits.
 */
function serializeDecimal(value: number): string {
  if (!Number.isFinite(value)) fail('§4.1.5', `${value} is not a decimal number`);
  const [whole = '0', fraction = ''] = shortestDecimal(Math.abs(value)).split('.');
  let units = BigInt(whole + fraction.slice(0, DECIMAL_PLACES).padEnd(DECIMAL_PLACES, '0'));
  if (roundsUp(fraction.slice(DECIMAL_PLACES), units)) units += 1n;
  const digits = units.toString().padStart(DECIMAL_PLACES + 1, '0');
  const integer = digits.slice(0, -DECIMAL_PLACES);
  if (integer.length > MAX_DECIMAL_INTEGER_DIGITS) fail('§4.1.5', `${value} has more than 12 integer digits`);
  const places = digits.slice(-DECIMAL_PLACES).replace(/0+$/, '') || '0';
  return `${value < 0 && units !== 0n ? '-' : ''}${integer}.${places}`;
}

/** Whether `units` (thousandths) goes up, given the digits `dropped` past the third place. */
function roundsUp(dropped: string, units: bigint): boolean {
  if (dropped === '') return false;
  const first = Number(dropped[0]);
  if (first !== 5) return first > 5;
  // Exactly half (a 5 then only zeros) goes to the even neighbour.
  return /[1-9]/.test(dropped.slice(1)) || units % 2n === 1n;
}

/** The shortest decimal that reads back as `value` (≥ 0), never in exponent form. */
function shortestDecimal(value: number): string {
  const text = String(value);
  if (!text.includes('e')) return text;
  // Below 1e-6 (the only exponent form under 12 integer digits) it rounds to 0 at three places.
  return value < 1 ? '0' : BigInt(Math.round(value)).toString();
}

/** §4.1.6: printable ASCII only; `"` and `\` escaped. */
function serializeString(value: string): string {
  if (/[^\x20-\x7e]/.test(value)) fail('§4.1.6', `${JSON.stringify(value)} has a character outside VCHAR and SP`);
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** §4.1.7 */
function serializeToken(value: string): string {
  if (!isToken(value)) fail('§4.1.7', `${JSON.stringify(value)} is not a token`);
  return value;
}

/** §4.1.8: base64 with "=" padding (RFC 4648 §4, §3.2). */
function serializeByteSequence(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `:${btoa(binary)}:`;
}

/**
 * §4.1.11: UTF-8, each byte that is "%", DQUOTE or outside %x20-7E written as "%" and two
 * lowercase hex digits. A lone surrogate is no Unicode code point: it fails.
 */
function serializeDisplayString(value: string): string {
  if (/\p{Cs}/u.test(value)) fail('§4.1.11', `${JSON.stringify(value)} is not a sequence of Unicode code points`);
  let output = '%"';
  for (const byte of new TextEncoder().encode(value)) {
    const escaped = byte === 0x25 || byte === 0x22 || byte < 0x20 || byte > 0x7e;
    output += escaped ? `%${byte.toString(16).padStart(2, '0')}` : String.fromCharCode(byte);
  }
  return `${output}"`;
}

function fail(clause: string, why: string): never {
  throw new RangeError(`RFC 9651 ${clause}: cannot serialize: ${why}`);
}
