// Structured Field Values parsed strictly (RFC 9651 §4.2): Dictionaries (what RFC 9213's targeted
// cache-control fields are), Lists (Cache-Status, RFC 9211) and Items. Pure: a string in, the
// structure or undefined (invalid) out. Both fields we read are defined over RFC 8941, which RFC
// 9651 obsoletes with the same algorithms plus two types (Date, Display String), read only when the
// caller says the field's definition references RFC 9651. The HTTP working group's vectors run
// against it (test/shared/http/structured-field-vectors.test.ts).

import {
  type BareItem,
  type Cursor,
  KEY_CHAR,
  LCALPHA,
  parseBareItem,
  peek,
  type StructuredFieldsRfc,
  skip,
} from './structured-items.ts';

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
/** A member of a List or a Dictionary's value (§3.1, §3.2). */
export type Member = Item | InnerList;

/** Which RFC the field's definition references: RFC 8941 unless it says RFC 9651 (§2). */
export interface ParseOptions {
  rfc?: StructuredFieldsRfc;
}

/**
 * Parses a field value as an sf-dictionary (§4.2.2); undefined on any parse error (§4.2: the whole
 * field is then ignored). Never throws. A repeated key takes its last value, as §4.2.2 says
 * ("overwrite its value"), unlike Cache-Control's first occurrence.
 */
export function parseDictionary(value: string, options?: ParseOptions): ReadonlyMap<string, Member> | undefined {
  return parseField(value, options, dictionaryAt);
}

/** Parses a field value as an sf-list (§4.2.1); undefined on any parse error. Never throws. */
export function parseList(value: string, options?: ParseOptions): readonly Member[] | undefined {
  return parseField(value, options, listAt);
}

/** Parses a field value as an sf-item (§4.2.3); undefined on any parse error. Never throws. */
export function parseItem(value: string, options?: ParseOptions): Item | undefined {
  return parseField(value, options, itemAt);
}

/**
 * §4.2, the top level: the value is ASCII (step 0), leading SP is discarded (step 1), the structure
 * parsed, trailing SP discarded (step 5), and anything left fails parsing (step 6). Several field
 * lines reach here already joined by ", " (RFC 9110 §5.3, what `Headers.get` does), as §4.2 asks.
 */
function parseField<T>(
  value: string,
  { rfc = 8941 }: ParseOptions = {},
  parse: (input: Cursor) => T | undefined,
): T | undefined {
  if (/[^\x00-\x7f]/.test(value)) return undefined;
  const input: Cursor = { text: value, pos: 0, rfc };
  skip(input, ' ');
  const output = parse(input);
  if (output === undefined) return undefined;
  skip(input, ' ');
  return input.pos === input.text.length ? output : undefined;
}

/** §4.2.1 */
function listAt(input: Cursor): Member[] | undefined {
  const members: Member[] = [];
  while (input.pos < input.text.length) {
    const member = memberAt(input);
    if (member === undefined) return undefined;
    members.push(member);
    const next = afterMember(input);
    if (next !== 'another') return next === 'end' ? members : undefined;
  }
  return members;
}

/** §4.2.2 */
function dictionaryAt(input: Cursor): Map<string, Member> | undefined {
  const dictionary = new Map<string, Member>();
  while (input.pos < input.text.length) {
    const key = keyAt(input);
    if (key === undefined) return undefined;
    let member: Member | undefined;
    if (peek(input) === '=') {
      input.pos++;
      member = memberAt(input);
    } else {
      const params = parametersAt(input);
      member = params && { kind: 'item', item: { type: 'boolean', value: true }, params };
    }
    if (member === undefined) return undefined;
    dictionary.set(key, member);
    const next = afterMember(input);
    if (next !== 'another') return next === 'end' ? dictionary : undefined;
  }
  return dictionary;
}

/**
 * §4.2.1 steps 2.2–2.6 (§4.2.2 steps 2.6–2.10 alike): after a member, OWS, then the end, or a
 * comma and OWS before another member; anything else, a trailing comma included, fails parsing.
 */
function afterMember(input: Cursor): 'end' | 'another' | undefined {
  skip(input, ' \t');
  if (input.pos >= input.text.length) return 'end';
  if (peek(input) !== ',') return undefined;
  input.pos++;
  skip(input, ' \t');
  return input.pos < input.text.length ? 'another' : undefined;
}

/** §4.2.1.1 */
function memberAt(input: Cursor): Member | undefined {
  return peek(input) === '(' ? innerListAt(input) : itemAt(input);
}

/** §4.2.3.3 */
function keyAt(input: Cursor): string | undefined {
  const first = peek(input);
  if (first === '' || (!LCALPHA.test(first) && first !== '*')) return undefined;
  const start = input.pos;
  while (input.pos < input.text.length && KEY_CHAR.test(peek(input))) input.pos++;
  return input.text.slice(start, input.pos);
}

/** §4.2.3: bare item, then parameters. */
function itemAt(input: Cursor): Item | undefined {
  const item = parseBareItem(input);
  const params = item && parametersAt(input);
  return item && params && { kind: 'item', item, params };
}

/** §4.2.1.2 */
function innerListAt(input: Cursor): InnerList | undefined {
  input.pos++; // "("
  const items: Item[] = [];
  while (input.pos < input.text.length) {
    skip(input, ' ');
    if (peek(input) === ')') {
      input.pos++;
      const params = parametersAt(input);
      return params && { kind: 'inner-list', items, params };
    }
    const item = itemAt(input);
    if (item === undefined) return undefined;
    items.push(item);
    const next = peek(input);
    if (next !== ' ' && next !== ')') return undefined;
  }
  return undefined;
}

/** §4.2.3.2 */
function parametersAt(input: Cursor): Map<string, BareItem> | undefined {
  const params = new Map<string, BareItem>();
  while (peek(input) === ';') {
    input.pos++;
    skip(input, ' ');
    const key = keyAt(input);
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
