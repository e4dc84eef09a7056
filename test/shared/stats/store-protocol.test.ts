import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStatsBatch, MAX_NAME_LENGTH, parseStatsBatch } from '../../../shared/stats/store-protocol.ts';
import { TOTAL_FIELDS } from '../../../shared/stats/totals.ts';
import { BASE, batchArb, batchOf, record } from './arbitraries.ts';

const row = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  minute: BASE,
  tier: 'edge',
  host: 'cdn.example',
  outcome: 'hit',
  requests: 1,
  bytesSent: 10,
  bytesFromNextHop: 0,
  bytesFromOrigin: 0,
  ttfbMsSum: 1.5,
  durationMsSum: 2,
  slicesHit: 0,
  slicesMissed: 0,
  departed: 0,
  ...overrides,
});
const reasonOf = (value: unknown): string => {
  const parsed = parseStatsBatch(value);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  return parsed.reason;
};

describe('parseStatsBatch', () => {
  it('accepts a batch, reasons and fractional time sums included', () => {
    const batch = {
      rows: [row(), row({ outcome: 'bypass', reason: 'method' })],
      misses: [{ minute: BASE, key: '/a', misses: 3 }],
    };
    expect(parseStatsBatch(batch)).toEqual({ ok: true, batch });
    expect(isStatsBatch(batch)).toBe(true);
    expect(parseStatsBatch({ rows: [], misses: [] })).toEqual({ ok: true, batch: { rows: [], misses: [] } });
  });

  it('accepts what the sending isolate did on the platform (its tier, its KV list, write and read requests), or none from an older release', () => {
    const batch = { rows: [row()], misses: [], operations: { tier: 'shield', kvLists: 3, kvWrites: 0, kvReads: 2 } };
    expect(parseStatsBatch(batch)).toEqual({ ok: true, batch });
    expect(parseStatsBatch({ rows: [row()], misses: [] })).toEqual({ ok: true, batch: { rows: [row()], misses: [] } });
  });

  it('accepts operations from an isolate of an earlier release, before KV reads were counted, as none read', () => {
    const parsed = parseStatsBatch({ rows: [], misses: [], operations: { tier: 'edge', kvLists: 2, kvWrites: 1 } });
    expect(parsed).toEqual({
      ok: true,
      batch: { rows: [], misses: [], operations: { tier: 'edge', kvLists: 2, kvWrites: 1, kvReads: 0 } },
    });
  });

  it('refuses KV reads that are not a whole count, saying so', () => {
    for (const kvReads of [-1, 1.5, '2', null, Number.POSITIVE_INFINITY, Number.NaN]) {
      const operations = { tier: 'edge', kvLists: 0, kvWrites: 0, kvReads };
      expect(reasonOf({ rows: [], misses: [], operations })).toBe(
        'operations: expected "kvReads" to be absent or a whole number, at least 0',
      );
    }
  });

  it("accepts the shield's hedges with its operations, and refuses a count of them that is not whole", () => {
    const hedges = { hedgesStarted: 5, hedgesWon: 4, hedgesLost: 1, hedgeBytes: 65_536 };
    const operations = { tier: 'shield', kvLists: 0, kvWrites: 0, kvReads: 0, ...hedges };
    expect(parseStatsBatch({ rows: [], misses: [], operations })).toEqual({
      ok: true,
      batch: { rows: [], misses: [], operations },
    });
    for (const name of Object.keys(hedges)) {
      for (const bad of [-1, 1.5, '2', null, Number.NaN]) {
        expect(reasonOf({ rows: [], misses: [], operations: { ...operations, [name]: bad } })).toBe(
          `operations: expected "${name}" to be absent or a whole number, at least 0`,
        );
      }
    }
  });

  it("accepts the shield's prefetches with its operations, and refuses a count of them that is not whole", () => {
    const prefetches = {
      prefetched: 6,
      prefetchesUsed: 4,
      prefetchesWasted: 1,
      prefetchBytes: 600_000,
      prefetchWastedBytes: 100_000,
    };
    const operations = { tier: 'shield', kvLists: 0, kvWrites: 0, kvReads: 0, ...prefetches };
    expect(parseStatsBatch({ rows: [], misses: [], operations })).toEqual({
      ok: true,
      batch: { rows: [], misses: [], operations },
    });
    for (const name of Object.keys(prefetches))
      for (const bad of [-1, 2.5, '3', null])
        expect(reasonOf({ rows: [], misses: [], operations: { ...operations, [name]: bad } })).toBe(
          `operations: expected "${name}" to be absent or a whole number, at least 0`,
        );
  });

  it("accepts the R2 tier's operations with the shield's, its byte-seconds a sum that need not be whole, and refuses junk", () => {
    const r2 = { r2Gets: 9, r2Puts: 2, r2PutBytes: 3_000_000, r2Lists: 1, r2StoredByteSeconds: 1_234.5 };
    const operations = { tier: 'shield', kvLists: 0, kvWrites: 0, kvReads: 0, ...r2 };
    expect(parseStatsBatch({ rows: [], misses: [], operations })).toEqual({
      ok: true,
      batch: { rows: [], misses: [], operations },
    });
    for (const name of ['r2Gets', 'r2Puts', 'r2PutBytes', 'r2Lists'])
      for (const bad of [-1, 2.5, '3', null])
        expect(reasonOf({ rows: [], misses: [], operations: { ...operations, [name]: bad } })).toBe(
          `operations: expected "${name}" to be absent or a whole number, at least 0`,
        );
    for (const bad of [-1, '3', null, Number.POSITIVE_INFINITY])
      expect(reasonOf({ rows: [], misses: [], operations: { ...operations, r2StoredByteSeconds: bad } })).toBe(
        'operations: expected "r2StoredByteSeconds" to be absent or a finite number, at least 0',
      );
  });

  it('accepts a row from an isolate of an earlier release, before departures were counted, as none departed', () => {
    const { departed: _, ...earlier } = row({ requests: 4 });
    const parsed = parseStatsBatch({ rows: [earlier], misses: [] });
    expect(parsed).toEqual({ ok: true, batch: { rows: [row({ requests: 4, departed: 0 })], misses: [] } });
  });

  it('refuses operations that are not counts of a tier, saying so', () => {
    for (const operations of [
      null,
      3,
      [],
      { tier: 'origin', kvLists: 1, kvWrites: 0 },
      { tier: 'edge', kvLists: -1, kvWrites: 0 },
      { tier: 'edge', kvLists: 1.5, kvWrites: 0 },
      { tier: 'edge', kvLists: 1 },
    ]) {
      expect(reasonOf({ rows: [], misses: [], operations })).toMatch(/^operations: expected/);
    }
  });

  it('refuses what is not an object with both arrays', () => {
    for (const value of [null, undefined, 3, 'rows', [], { rows: [] }, { misses: [] }, { rows: {}, misses: [] }]) {
      expect(reasonOf(value)).toMatch(/arrays "rows" and "misses"/);
      expect(isStatsBatch(value)).toBe(false);
    }
  });

  it('says which row is wrong and why', () => {
    expect(reasonOf({ rows: [row(), row({ minute: BASE + 1 })], misses: [] })).toMatch(
      /^rows\[1\]: expected "minute" to be the ms epoch of a minute's start/,
    );
    expect(reasonOf({ rows: [row({ tier: 'origin' })], misses: [] })).toMatch(
      /^rows\[0\]: expected "tier" to be edge or shield/,
    );
    expect(reasonOf({ rows: [row({ outcome: 'HIT' })], misses: [] })).toMatch(/"outcome" to be one of hit, miss/);
    expect(reasonOf({ rows: [row({ host: 7 })], misses: [] })).toMatch(/"host" to be a string/);
    expect(reasonOf({ rows: [row({ host: 'h'.repeat(MAX_NAME_LENGTH + 1) })], misses: [] })).toMatch(
      /at most 256 characters/,
    );
    expect(reasonOf({ rows: [row({ reason: null })], misses: [] })).toMatch(/"reason" to be absent or a string/);
    expect(reasonOf({ rows: [3], misses: [] })).toMatch(/^rows\[0\]: expected an object/);
    expect(reasonOf({ rows: [], misses: [{ minute: BASE, key: '/a', misses: -1 }] })).toMatch(
      /^misses\[0\]: expected "misses" to be a whole number/,
    );
    expect(reasonOf({ rows: [], misses: [{ minute: BASE, key: 1, misses: 1 }] })).toMatch(/"key" to be a string/);
  });

  it('refuses any total that is not a finite number at least 0, and counts that are not whole', () => {
    for (const field of TOTAL_FIELDS) {
      for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '1', null]) {
        expect(reasonOf({ rows: [row({ [field]: bad })], misses: [] })).toContain(`"${field}"`);
      }
      // Absent is an earlier release's batch only for a field counted since (below).
      if (field !== 'departed')
        expect(reasonOf({ rows: [row({ [field]: undefined })], misses: [] })).toContain(`"${field}"`);
    }
    expect(reasonOf({ rows: [row({ requests: 1.5 })], misses: [] })).toMatch(/"requests" .*whole/);
    expect(reasonOf({ rows: [row({ departed: 0.5 })], misses: [] })).toMatch(/"departed" .*whole/);
    expect(parseStatsBatch({ rows: [row({ bytesSent: 1.5 })], misses: [] }).ok).toBe(true);
  });

  it('builds its result afresh: fields it does not know, __proto__ among them, do not come through', () => {
    const parsed = parseStatsBatch(
      JSON.parse(
        `{"rows": [${JSON.stringify(row({ extra: 1 })).slice(0, -1)}, "__proto__": {"polluted": true}}], "misses": [], "more": 1}`,
      ),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(Object.keys(parsed.batch)).toEqual(['rows', 'misses']);
    const [first] = parsed.batch.rows;
    expect(first !== undefined && ('extra' in first || Object.hasOwn(first, '__proto__'))).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts every batch a StatsBatch takes, after JSON', () => {
    fc.assert(
      fc.property(batchArb({ hosts: 60, keys: 220 }, 200), (batch) => {
        expect(parseStatsBatch(JSON.parse(JSON.stringify(batch)))).toEqual({ ok: true, batch });
      }),
      { numRuns: 100 },
    );
  });

  it('never throws and never accepts what is not a batch, whatever JSON arrives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = parseStatsBatch(value);
        if (parsed.ok) {
          expect(Array.isArray(parsed.batch.rows) && Array.isArray(parsed.batch.misses)).toBe(true);
          for (const one of parsed.batch.rows)
            expect(Number.isSafeInteger(one.requests) && one.requests >= 0).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a batch with any one field of any row changed to junk', () => {
    const batch = batchOf([record(), record({ outcome: 'miss' })]);
    const junk = fc.constantFrom<unknown>(-1, 'x', null, Number.NaN, {}, [], 1.5, 'h'.repeat(300), true);
    const fields = ['minute', 'tier', 'host', 'outcome', ...TOTAL_FIELDS];
    fc.assert(
      fc.property(fc.nat(batch.rows.length - 1), fc.constantFrom(...fields), junk, (index, field, value) => {
        const rows: Record<string, unknown>[] = batch.rows.map((one) => ({ ...one }));
        rows[index] = { ...rows[index], [field]: value };
        const parsed = parseStatsBatch({ rows, misses: batch.misses });
        // A fractional byte or time sum is still a sum, a short string still a host; everything else is refused.
        const stillValid =
          (value === 1.5 &&
            ['bytesSent', 'bytesFromNextHop', 'bytesFromOrigin', 'ttfbMsSum', 'durationMsSum'].includes(field)) ||
          (value === 'x' && field === 'host');
        expect(parsed.ok).toBe(stillValid);
      }),
    );
  });
});
