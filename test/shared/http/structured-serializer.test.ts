import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BareItem,
  type Item,
  type Member,
  parseDictionary,
  parseItem,
  parseList,
} from '../../../shared/http/structured-fields.ts';
import {
  MAX_INTEGER,
  serializeBareItem,
  serializeDictionary,
  serializeItem,
  serializeList,
} from '../../../shared/http/structured-serializer.ts';

const RFC_9651 = { rfc: 9651 } as const;
const item = (bare: BareItem, params: [string, BareItem][] = []): Item => ({
  kind: 'item',
  item: bare,
  params: new Map(params),
});
const dec = (value: number): BareItem => ({ type: 'decimal', value });

describe('serializing (RFC 9651 §4.1)', () => {
  it('writes each bare item type as §4.1.4–§4.1.11 say', () => {
    expect(
      serializeList([
        item({ type: 'integer', value: -42 }),
        item(dec(4.5)),
        item({ type: 'string', value: 'say "hi" \\' }),
        item({ type: 'token', value: 'foo123/456' }),
        item({ type: 'binary', value: new TextEncoder().encode('hello') }),
        item({ type: 'boolean', value: false }),
        item({ type: 'date', value: 1659578233 }),
        item({ type: 'displaystring', value: 'für 100% "ok"' }),
      ]),
    ).toBe('-42, 4.5, "say \\"hi\\" \\\\", foo123/456, :aGVsbG8=:, ?0, @1659578233, %"f%c3%bcr 100%25 %22ok%22"');
  });

  it('omits the value of a Boolean true parameter or Dictionary member (§4.1.1.2, §4.1.2)', () => {
    const yes: BareItem = { type: 'boolean', value: true };
    const dictionary = new Map<string, Member>([
      ['a', item(yes, [['p', yes]])],
      [
        'b',
        { kind: 'inner-list', items: [item({ type: 'integer', value: 1 }), item(yes)], params: new Map([['q', yes]]) },
      ],
    ]);
    expect(serializeDictionary(dictionary)).toBe('a;p, b=(1 ?1);q');
  });

  it('rounds a Decimal to three places, half to even, on the value as written (§4.1.5)', () => {
    expect(
      [0.0015, 0.0025, -0.0025, 1.0005, 9.9995, 2.5, 0.00049, 123456789012.1234].map((value) =>
        serializeBareItem(dec(value)),
      ),
    ).toEqual(['0.002', '0.002', '-0.002', '1.0', '10.0', '2.5', '0.0', '123456789012.123']);
  });

  it('fails serialization with a RangeError naming the clause, for what no field can carry', () => {
    const cases: [() => string, string][] = [
      [() => serializeBareItem({ type: 'integer', value: MAX_INTEGER + 1 }), '§4.1.4'],
      [() => serializeBareItem({ type: 'integer', value: 1.5 }), '§4.1.4'],
      [() => serializeBareItem(dec(1e12)), '§4.1.5'],
      [() => serializeBareItem(dec(Number.NaN)), '§4.1.5'],
      [() => serializeBareItem({ type: 'string', value: 'tab\there' }), '§4.1.6'],
      [() => serializeBareItem({ type: 'token', value: '1abc' }), '§4.1.7'],
      [() => serializeBareItem({ type: 'date', value: 1e15 }), '§4.1.4'],
      [() => serializeBareItem({ type: 'displaystring', value: '\ud800' }), '§4.1.11'],
      [
        () => serializeItem(item({ type: 'integer', value: 1 }, [['Upper', { type: 'integer', value: 1 }]])),
        '§4.1.1.3',
      ],
    ];
    for (const [write, clause] of cases) expect(write).toThrow(new RegExp(`^RFC 9651 ${clause}: cannot serialize`));
  });
});

// --- properties ---------------------------------------------------------------------------

const key = fc.stringMatching(/^[a-z*][a-z0-9_\-.*]{0,8}$/);
const bareItem: fc.Arbitrary<BareItem> = fc.oneof(
  fc.integer({ min: -MAX_INTEGER, max: MAX_INTEGER }).map((value) => ({ type: 'integer', value }) as const),
  fc.integer({ min: -MAX_INTEGER, max: MAX_INTEGER }).map((thousandths) => dec(thousandths / 1000 + 0)),
  fc
    .string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 20 })
    .map((value) => ({ type: 'string', value }) as const),
  fc
    .stringMatching(/^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]{0,10}$/)
    .map((value) => ({ type: 'token', value }) as const),
  fc.uint8Array({ maxLength: 20 }).map((value) => ({ type: 'binary', value }) as const),
  fc.boolean().map((value) => ({ type: 'boolean', value }) as const),
  fc.integer({ min: -MAX_INTEGER, max: MAX_INTEGER }).map((value) => ({ type: 'date', value }) as const),
  fc.string({ unit: 'binary', maxLength: 12 }).map((value) => ({ type: 'displaystring', value }) as const),
);
const params = fc
  .uniqueArray(fc.tuple(key, bareItem), { selector: ([name]) => name, maxLength: 3 })
  .map((entries) => new Map(entries));
const anItem: fc.Arbitrary<Item> = fc.record({ kind: fc.constant('item' as const), item: bareItem, params });
const member: fc.Arbitrary<Member> = fc.oneof(
  anItem,
  fc.record({ kind: fc.constant('inner-list' as const), items: fc.array(anItem, { maxLength: 3 }), params }),
);

describe('structured fields properties', () => {
  it('reads back what it writes: parse(serialize(x)) is x for any Item, List and Dictionary (§4.1, §4.2)', () => {
    fc.assert(
      fc.property(
        anItem,
        fc.array(member, { maxLength: 4 }),
        fc.uniqueArray(fc.tuple(key, member), { selector: ([name]) => name, maxLength: 4 }),
        (one, list, entries) => {
          expect(parseItem(serializeItem(one), RFC_9651)).toEqual(one);
          expect(parseList(serializeList(list), RFC_9651)).toEqual(list);
          const dictionary = new Map(entries);
          expect(parseDictionary(serializeDictionary(dictionary), RFC_9651)).toEqual(dictionary);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('parses any string without throwing, as RFC 8941 and as RFC 9651 (§4.2: a failure is undefined)', () => {
    const sfAlphabet = fc.string({ unit: fc.constantFrom(...'a=1,;?()":*@%\t -.Z\\'), maxLength: 30 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), sfAlphabet), (value) => {
        for (const options of [undefined, RFC_9651]) {
          for (const parse of [parseItem, parseList, parseDictionary])
            expect(() => parse(value, options)).not.toThrow();
        }
      }),
      { numRuns: 500 },
    );
  });
});
