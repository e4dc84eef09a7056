// The HTTP working group's Structured Field test vectors (httpwg/structured-field-tests, vendored in
// structured-field-tests/, see its SOURCE.md) against our parser and serializer, RFC 9651 §4. Every
// parsing file (items, lists, dictionaries, parameters, the generated ones, dates, display strings)
// and every serialisation file runs; a summary prints how many passed, and how.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type BareItem,
  type Item,
  type Member,
  parseDictionary,
  parseItem,
  parseList,
} from '../../../shared/http/structured-fields.ts';
import { serializeDictionary, serializeItem, serializeList } from '../../../shared/http/structured-serializer.ts';

const RFC_9651 = { rfc: 9651 } as const;
const VENDORED = new URL('./structured-field-tests/', import.meta.url);
/** Where CI keeps the suite, read-only, beside the repository. */
const UPSTREAM = new URL('../../../../shared/structured-field-tests/', import.meta.url);

// --- The vectors' format (the suite's README) -----------------------------------------------

type JsonBare = number | string | boolean | { __type: 'token' | 'binary' | 'date' | 'displaystring'; value: unknown };
type JsonParams = [string, JsonBare][];
type JsonItem = [JsonBare, JsonParams];
type JsonMember = JsonItem | [JsonItem[], JsonParams];
type FieldType = 'item' | 'list' | 'dictionary';
type Expected = JsonItem | JsonMember[] | [string, JsonMember][];

interface Vector {
  name: string;
  raw?: string[];
  header_type: FieldType;
  expected?: Expected;
  must_fail?: boolean;
  can_fail?: boolean;
  canonical?: string[];
}

type Structure = Item | readonly Member[] | ReadonlyMap<string, Member>;

// --- Counting -------------------------------------------------------------------------------

/** How a vector passed. */
type Outcome = 'parsed' | 'refused (must_fail)' | 'refused (can_fail)' | 'serialized' | 'not serialized (must_fail)';

interface FileResult {
  file: string;
  outcomes: Map<Outcome, number>;
  /** Each vector that did not pass: its name and what went wrong. */
  failures: string[];
}

const sums = readFileSync(new URL('SHA256SUMS', VENDORED), 'utf8')
  .trim()
  .split('\n')
  .map((line) => {
    const [digest = '', file = ''] = line.split(/\s+/);
    return { digest, file };
  });
const vectorFiles = sums.map(({ file }) => file).filter((file) => file.endsWith('.json'));
const parsingFiles = vectorFiles.filter((file) => !file.startsWith('serialisation-tests/'));
const serialisationFiles = vectorFiles.filter((file) => file.startsWith('serialisation-tests/'));

const read = (file: string): Vector[] => JSON.parse(readFileSync(new URL(file, VENDORED), 'utf8')) as Vector[];
const results = [...parsingFiles.map(runParsing), ...serialisationFiles.map(runSerialisation)];

describe('the vendored suite (structured-field-tests/, SOURCE.md)', () => {
  it('is the copy SHA256SUMS lists, and byte-identical to ../shared/structured-field-tests/ when that is beside the repository', () => {
    const vendored = listFiles(VENDORED).filter(
      (file) => !['SOURCE.md', 'SHA256SUMS', '.gitattributes'].includes(file),
    );
    expect(vendored.sort()).toEqual(sums.map(({ file }) => file).sort());
    for (const { digest, file } of sums) {
      expect(
        createHash('sha256')
          .update(readFileSync(new URL(file, VENDORED)))
          .digest('hex'),
        file,
      ).toBe(digest);
    }
    if (existsSync(UPSTREAM)) {
      const upstreamVectors = listFiles(UPSTREAM).filter(
        (file) => file.endsWith('.json') && !file.startsWith('schema/'),
      );
      expect(upstreamVectors.sort()).toEqual([...vectorFiles].sort());
      for (const { file } of sums) {
        expect(readFileSync(new URL(file, VENDORED)).equals(readFileSync(new URL(file, UPSTREAM))), file).toBe(true);
      }
    }
  });

  it('has every parsing file (items, lists, dictionaries, parameters, dates, display strings) and every serialisation file', () => {
    expect(parsingFiles).toEqual(
      expect.arrayContaining([
        'binary.json',
        'date.json',
        'display-string.json',
        'key-generated.json',
        'large-generated.json',
      ]),
    );
    expect(parsingFiles).toHaveLength(20);
    expect(serialisationFiles).toHaveLength(4);
  });
});

describe('RFC 9651 §4.2: parsing, each file of vectors', () => {
  it.each(parsingFiles)('%s: must_fail refused, the rest parsed to expected and serialized to canonical', (file) => {
    expect(resultOf(file).failures).toEqual([]);
  });
});

describe('RFC 9651 §4.1: serializing, each file of serialisation-tests/', () => {
  it.each(serialisationFiles)('%s: must_fail not serialized, the rest serialized to canonical', (file) => {
    expect(resultOf(file).failures).toEqual([]);
  });
});

describe('the summary', () => {
  it('counts every vector once, as passed; none is left out as not applicable', () => {
    const total = (outcomes: Map<Outcome, number>) => [...outcomes.values()].reduce((sum, n) => sum + n, 0);
    for (const result of results) expect(total(result.outcomes), result.file).toBe(read(result.file).length);
    const all = results.reduce((sum, result) => sum + total(result.outcomes), 0);
    const failed = results.reduce((sum, result) => sum + result.failures.length, 0);
    const lines = results.map(
      (result) =>
        `  ${result.file}: ${total(result.outcomes) - result.failures.length}/${total(result.outcomes)} passed (${[
          ...result.outcomes,
        ]
          .map(([outcome, n]) => `${n} ${outcome}`)
          .join(', ')})`,
    );
    console.log(
      `structured-field-tests: ${all - failed} of ${all} vectors passed, 0 not applicable ` +
        `(Date and Display String, RFC 9651 §3.3.7–3.3.8, implemented)\n${lines.join('\n')}`,
    );
    expect(failed).toBe(0);
    expect(all).toBe(2135);
  });
});

// --- Running a file -------------------------------------------------------------------------

function resultOf(file: string): FileResult {
  const result = results.find((candidate) => candidate.file === file);
  if (result === undefined) throw new Error(`${file} was not run`);
  return result;
}

function runParsing(file: string): FileResult {
  const result: FileResult = { file, outcomes: new Map(), failures: [] };
  for (const vector of read(file)) {
    const parsed = parse(vector.header_type, (vector.raw ?? []).join(', '));
    const failure = parsingFailure(vector, parsed);
    if (failure !== undefined) result.failures.push(`${vector.name}: ${failure}`);
    const outcome: Outcome =
      parsed !== undefined ? 'parsed' : vector.must_fail ? 'refused (must_fail)' : 'refused (can_fail)';
    result.outcomes.set(outcome, (result.outcomes.get(outcome) ?? 0) + 1);
  }
  return result;
}

/**
 * What is wrong with how a vector parsed, or undefined. Several field lines are one value joined
 * by ", " (RFC 9110 §5.3), as §4.2 asks and as `Headers.get` gives them.
 */
function parsingFailure(vector: Vector, parsed: Structure | undefined): string | undefined {
  if (vector.must_fail)
    return parsed === undefined ? undefined : `must fail, parsed as ${JSON.stringify(plain(parsed))}`;
  if (parsed === undefined) return vector.can_fail ? undefined : 'must parse, failed';
  const got = JSON.stringify(plain(parsed));
  const want = JSON.stringify(normalize(vector.header_type, vector.expected));
  if (got !== want) return `parsed as ${got}, expected ${want}`;
  const written = serialize(vector.header_type, parsed);
  const lines = written === '' ? [] : [written];
  const canonical = vector.canonical ?? vector.raw ?? [];
  return JSON.stringify(lines) === JSON.stringify(canonical)
    ? undefined
    : `serialized as ${JSON.stringify(lines)}, canonical ${JSON.stringify(canonical)}`;
}

function runSerialisation(file: string): FileResult {
  const result: FileResult = { file, outcomes: new Map(), failures: [] };
  for (const vector of read(file)) {
    let written: string | undefined;
    let error: unknown;
    try {
      written = serialize(vector.header_type, structure(vector.header_type, vector.expected));
    } catch (thrown) {
      error = thrown;
    }
    if (vector.must_fail && !(error instanceof RangeError)) {
      result.failures.push(`${vector.name}: must fail, serialized as ${JSON.stringify(written)} (${error})`);
    }
    if (!vector.must_fail && written !== vector.canonical?.[0]) {
      result.failures.push(
        `${vector.name}: serialized as ${JSON.stringify(written)} (${error}), canonical ${vector.canonical}`,
      );
    }
    const outcome: Outcome = vector.must_fail ? 'not serialized (must_fail)' : 'serialized';
    result.outcomes.set(outcome, (result.outcomes.get(outcome) ?? 0) + 1);
  }
  return result;
}

/** The suite is RFC 9651's: its Dates and Display Strings are read. */
function parse(type: FieldType, value: string): Structure | undefined {
  if (type === 'item') return parseItem(value, RFC_9651);
  if (type === 'list') return parseList(value, RFC_9651);
  return parseDictionary(value, RFC_9651);
}

function serialize(type: FieldType, value: Structure): string {
  if (type === 'item') return serializeItem(value as Item);
  if (type === 'list') return serializeList(value as readonly Member[]);
  return serializeDictionary(value as ReadonlyMap<string, Member>);
}

// --- Ours as the vectors' JSON, and back ----------------------------------------------------

/** Our structure in the vectors' JSON form; a byte sequence as its bytes, a number without its sign of zero. */
function plain(value: Structure): unknown {
  if (value instanceof Map) return [...value].map(([key, member]) => [key, plainMember(member)]);
  if (Array.isArray(value)) return value.map(plainMember);
  return plainMember(value as Item);
}

function plainMember(member: Member): unknown {
  const params = [...member.params].map(([key, bare]) => [key, plainBare(bare)]);
  if (member.kind === 'item') return [plainBare(member.item), params];
  return [member.items.map(plainMember), params];
}

function plainBare(bare: BareItem): unknown {
  switch (bare.type) {
    case 'integer':
    case 'decimal':
      return bare.value + 0;
    case 'string':
    case 'boolean':
      return bare.value;
    case 'binary':
      return { __type: 'binary', value: [...bare.value] };
    case 'date':
      return { __type: 'date', value: bare.value + 0 };
    default:
      return { __type: bare.type, value: bare.value };
  }
}

/** The expected JSON in the same form: base32 (as the suite writes bytes) decoded. */
function normalize(type: FieldType, expected: Expected | undefined): unknown {
  return plain(structure(type, expected));
}

/** The vectors' JSON as our structure: a JSON number is an Integer when it is whole, else a Decimal. */
function structure(type: FieldType, expected: Expected | undefined): Structure {
  if (type === 'item') return item(expected as JsonItem);
  if (type === 'list') return ((expected ?? []) as JsonMember[]).map(member);
  return new Map(((expected ?? []) as [string, JsonMember][]).map(([key, value]) => [key, member(value)]));
}

function member(json: JsonMember): Member {
  const [value, params] = json;
  if (!Array.isArray(value)) return item(json as JsonItem);
  return { kind: 'inner-list', items: value.map(item), params: parameters(params) };
}

function item([value, params]: JsonItem): Item {
  return { kind: 'item', item: bare(value), params: parameters(params) };
}

function parameters(params: JsonParams): Map<string, BareItem> {
  return new Map(params.map(([key, value]) => [key, bare(value)]));
}

function bare(value: JsonBare): BareItem {
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'decimal', value };
  if (typeof value === 'string') return { type: 'string', value };
  if (typeof value === 'boolean') return { type: 'boolean', value };
  if (value.__type === 'binary') return { type: 'binary', value: base32(String(value.value)) };
  if (value.__type === 'date') return { type: 'date', value: Number(value.value) };
  return { type: value.__type, value: String(value.value) };
}

/** RFC 4648 §6 base32, padded, as the suite writes byte sequences. */
function base32(text: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes: number[] = [];
  let bits = 0;
  let buffer = 0;
  for (const char of text.replace(/=+$/, '')) {
    buffer = (buffer << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return new Uint8Array(bytes);
}

function listFiles(root: URL): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      `${entry.parentPath}/${entry.name}`.slice(decodeURIComponent(root.pathname).length).replace(/^\//, ''),
    );
}
