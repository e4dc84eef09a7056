// RFC 8941 Structured Field Dictionaries, parsed strictly (§4.2): what RFC 9213's targeted
// cache-control fields are. Pure: a string in, the members or undefined (invalid) out.

import { type BareItem, type Cursor, KEY_CHAR, LCALPHA, parseBareItem, peek, skip } from './structured-items.ts';

export type { BareItem };

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
