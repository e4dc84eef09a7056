import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OTHER } from '../../../shared/stats/fold-other.ts';
import { OUTCOMES, type TierRecord } from '../../../shared/stats/record.ts';
import {
  MAX_BATCH_HOSTS,
  MAX_BATCH_MISS_KEYS,
  MAX_BATCH_REASONS,
  StatsBatch,
} from '../../../shared/stats/stats-batch.ts';
import { parseStatsBatch, type StatsBatchJson } from '../../../shared/stats/store-protocol.ts';
import { TOTAL_FIELDS } from '../../../shared/stats/totals.ts';
import { TIER_NAMES } from '../../../shared/tiers/tiers.ts';
import { BASE, batchOf, record, recordArb } from './arbitraries.ts';

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);
const distinct = (values: readonly string[]): Set<string> => new Set(values.filter((value) => value !== OTHER));

describe('StatsBatch', () => {
  it('sums records of the same minute, tier, host, outcome and reason into one row', () => {
    const batch = new StatsBatch();
    batch.add(record({ bytesSent: 10, ttfbMs: 1, at: BASE + 5 }));
    batch.add(record({ bytesSent: 32, ttfbMs: 4, slicesHit: 2, at: BASE + 59_999 }));
    expect(batch.size).toBe(2);
    expect(batch.take()).toEqual({
      rows: [
        {
          minute: BASE,
          tier: 'edge',
          host: 'cdn.example',
          outcome: 'hit',
          requests: 2,
          bytesSent: 42,
          bytesFromNextHop: 0,
          bytesFromOrigin: 0,
          ttfbMsSum: 5,
          durationMsSum: 6,
          slicesHit: 2,
          slicesMissed: 0,
          departed: 0,
        },
      ],
      misses: [],
    });
  });

  it('keeps minutes, tiers, hosts, outcomes and reasons apart', () => {
    const rows = batchOf([
      record(),
      record({ at: BASE + 60_000 }),
      record({ tier: 'shield' }),
      record({ host: 'other.example' }),
      record({ outcome: 'bypass', reason: 'method' }),
      record({ outcome: 'bypass', reason: 'no-store' }),
      record({ outcome: 'bypass' }),
    ]).rows;
    expect(rows).toHaveLength(7);
    expect(rows.map((row) => row.requests)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(rows[1]?.minute).toBe(BASE + 60_000);
    expect(rows.filter((row) => row.outcome === 'bypass').map((row) => row.reason)).toEqual([
      'method',
      'no-store',
      undefined,
    ]);
  });

  it('leaves the reason out of a row whose records have none (the JSON says nothing, not "undefined")', () => {
    const [row] = batchOf([record()]).rows;
    expect(row !== undefined && 'reason' in row).toBe(false);
  });

  it('counts the edge misses by key, per minute, and nothing else as a miss', () => {
    const { misses } = batchOf([
      record({ outcome: 'miss', keyPrefix: '/a' }),
      record({ outcome: 'miss', keyPrefix: '/a' }),
      record({ outcome: 'miss', keyPrefix: '/a', at: BASE + 60_000 }),
      record({ outcome: 'miss', keyPrefix: '/b' }),
      record({ outcome: 'miss', keyPrefix: '/c', tier: 'shield' }),
      record({ outcome: 'hit', keyPrefix: '/d' }),
      record({ outcome: 'stale', keyPrefix: '/e' }),
    ]);
    expect(misses).toEqual([
      { minute: BASE, key: '/a', misses: 2 },
      { minute: BASE + 60_000, key: '/a', misses: 1 },
      { minute: BASE, key: '/b', misses: 1 },
    ]);
  });

  it('is empty after take(), and a take() of nothing is an empty batch', () => {
    const batch = new StatsBatch();
    batch.add(record({ outcome: 'miss' }));
    expect(batch.take().rows).toHaveLength(1);
    expect(batch.size).toBe(0);
    expect(batch.take()).toEqual({ rows: [], misses: [] });
  });

  it('starts its bounds afresh after take(): a new batch admits new hosts', () => {
    const batch = new StatsBatch();
    for (let i = 0; i < MAX_BATCH_HOSTS + 1; i += 1) batch.add(record({ host: `h${i}` }));
    expect(batch.take().rows.some((row) => row.host === OTHER)).toBe(true);
    batch.add(record({ host: 'late.example' }));
    expect(batch.take().rows.map((row) => row.host)).toEqual(['late.example']);
  });

  it('does not change the rows it handed over when it is used again', () => {
    const batch = new StatsBatch();
    batch.add(record());
    const taken = batch.take();
    const copy = structuredClone(taken);
    batch.add(record());
    batch.add(record());
    expect(taken).toEqual(copy);
  });

  it(`keeps the first ${MAX_BATCH_HOSTS} hosts by name and counts the others under ${OTHER}, every request and byte of them`, () => {
    const records = Array.from({ length: MAX_BATCH_HOSTS + 30 }, (_, i) =>
      record({ host: `h${i}.example`, bytesSent: i }),
    );
    const { rows } = batchOf([...records, record({ host: 'h0.example', bytesSent: 1000 })]);
    expect(rows).toHaveLength(MAX_BATCH_HOSTS + 1);
    expect(rows.find((row) => row.host === 'h0.example')).toMatchObject({ requests: 2, bytesSent: 1000 });
    expect(rows.find((row) => row.host === `h${MAX_BATCH_HOSTS - 1}.example`)?.requests).toBe(1);
    expect(rows.find((row) => row.host === `h${MAX_BATCH_HOSTS}.example`)).toBeUndefined();
    const other = rows.find((row) => row.host === OTHER);
    expect(other).toMatchObject({
      requests: 30,
      bytesSent: sum(Array.from({ length: 30 }, (_, i) => MAX_BATCH_HOSTS + i)),
    });
  });

  it(`keeps ${MAX_BATCH_MISS_KEYS} missed keys by name; new keys after that are counted under ${OTHER}`, () => {
    const records = Array.from({ length: MAX_BATCH_MISS_KEYS + 5 }, (_, i) =>
      record({ outcome: 'miss', keyPrefix: `/k/${i}` }),
    );
    const { misses } = batchOf([...records, record({ outcome: 'miss', keyPrefix: '/k/0' })]);
    expect(misses).toHaveLength(MAX_BATCH_MISS_KEYS + 1);
    expect(misses.find((row) => row.key === '/k/0')?.misses).toBe(2);
    expect(misses.find((row) => row.key === OTHER)?.misses).toBe(5);
  });

  it(`keeps ${MAX_BATCH_REASONS} reasons per tier and outcome by name`, () => {
    const bypasses = Array.from({ length: MAX_BATCH_REASONS + 3 }, (_, i) =>
      record({ outcome: 'bypass', reason: `r${i}` }),
    );
    const errors = Array.from({ length: 4 }, (_, i) => record({ outcome: 'error', reason: `e${i}` }));
    const { rows } = batchOf([...bypasses, ...errors]);
    expect(rows.filter((row) => row.outcome === 'bypass' && row.reason !== OTHER)).toHaveLength(MAX_BATCH_REASONS);
    expect(rows.find((row) => row.outcome === 'bypass' && row.reason === OTHER)?.requests).toBe(3);
    expect(rows.filter((row) => row.outcome === 'error').map((row) => row.reason)).toEqual(['e0', 'e1', 'e2', 'e3']);
  });

  it('tells hosts, keys and reasons apart whatever characters they hold (no separator to forge)', () => {
    const { rows } = batchOf([
      record({ host: 'a","b' }),
      record({ host: 'a', reason: 'b' }),
      record({ host: 'a=b' }),
      record({ host: 'a 1 b' }),
      record({ host: 'a', reason: '' }),
      record({ host: 'a' }),
    ]);
    expect(rows).toHaveLength(6);
  });
});

describe('StatsBatch, whatever it is given', () => {
  const records = fc.array(recordArb({ hosts: 80, keys: 260, reasons: 30 }), { maxLength: 400 });

  it('never loses a request or a byte: every total of the rows is the sum over the records', () => {
    fc.assert(
      fc.property(records, (given) => {
        const { rows } = batchOf(given);
        expect(sum(rows.map((row) => row.requests))).toBe(given.length);
        expect(sum(rows.map((row) => row.bytesSent))).toBe(sum(given.map((one) => one.bytesSent)));
        expect(sum(rows.map((row) => row.bytesFromNextHop))).toBe(sum(given.map((one) => one.bytesFromNextHop)));
        expect(sum(rows.map((row) => row.bytesFromOrigin))).toBe(sum(given.map((one) => one.bytesFromOrigin)));
        expect(sum(rows.map((row) => row.ttfbMsSum))).toBe(sum(given.map((one) => one.ttfbMs)));
        expect(sum(rows.map((row) => row.durationMsSum))).toBe(sum(given.map((one) => one.durationMs)));
        expect(sum(rows.map((row) => row.slicesHit + row.slicesMissed))).toBe(
          sum(given.map((one) => one.slicesHit + one.slicesMissed)),
        );
      }),
      { numRuns: 150 },
    );
  });

  it('counts exactly per tier and outcome, per minute', () => {
    fc.assert(
      fc.property(records, (given) => {
        const { rows } = batchOf(given);
        for (const outcome of OUTCOMES) {
          const of = (one: { tier: string; outcome: string }): boolean =>
            one.tier === 'edge' && one.outcome === outcome;
          expect(sum(rows.filter(of).map((row) => row.requests))).toBe(given.filter(of).length);
        }
        const minutes = (list: readonly { minute: number }[]): number[] =>
          [...new Set(list.map((one) => one.minute))].sort();
        expect(minutes(rows)).toEqual(minutes(given.map((one) => ({ minute: Math.floor(one.at / 60_000) * 60_000 }))));
      }),
      { numRuns: 100 },
    );
  });

  it('counts every edge miss, under its key or under (other)', () => {
    fc.assert(
      fc.property(records, (given) => {
        const { misses } = batchOf(given);
        expect(sum(misses.map((row) => row.misses))).toBe(
          given.filter((one) => one.tier === 'edge' && one.outcome === 'miss').length,
        );
      }),
      { numRuns: 100 },
    );
  });

  it('holds its bounds: hosts, missed keys, reasons per tier and outcome', () => {
    fc.assert(
      fc.property(records, (given) => {
        const { rows, misses } = batchOf(given);
        expect(distinct(rows.map((row) => row.host)).size).toBeLessThanOrEqual(MAX_BATCH_HOSTS);
        expect(distinct(misses.map((row) => row.key)).size).toBeLessThanOrEqual(MAX_BATCH_MISS_KEYS);
        for (const tier of TIER_NAMES) {
          for (const outcome of OUTCOMES) {
            const reasons = rows
              .filter((row) => row.tier === tier && row.outcome === outcome)
              .flatMap((row) => (row.reason === undefined ? [] : [row.reason]));
            expect(distinct(reasons).size).toBeLessThanOrEqual(MAX_BATCH_REASONS);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('is exact per host while within the bound', () => {
    fc.assert(
      fc.property(fc.array(recordArb({ hosts: MAX_BATCH_HOSTS - 8 }), { maxLength: 200 }), (given) => {
        const { rows } = batchOf(given);
        for (const host of new Set(given.map((one) => one.host))) {
          if (host === OTHER) continue;
          expect(sum(rows.filter((row) => row.host === host).map((row) => row.bytesSent))).toBe(
            sum(given.filter((one) => one.host === host).map((one) => one.bytesSent)),
          );
        }
      }),
      { numRuns: 100 },
    );
  });

  it('has exactly one row per distinct minute, tier, host, outcome and reason while within its bounds', () => {
    fc.assert(
      fc.property(fc.array(recordArb({ hosts: 30, reasons: 6 }), { maxLength: 200 }), (given) => {
        const identities = new Set(
          given.map((one) =>
            JSON.stringify([Math.floor(one.at / 60_000), one.tier, one.host, one.outcome, one.reason ?? null]),
          ),
        );
        expect(batchOf(given).rows).toHaveLength(identities.size);
      }),
      { numRuns: 100 },
    );
  });

  it('has one row per identity, and size counts the records since the last take', () => {
    fc.assert(
      fc.property(records, (given) => {
        const batch = new StatsBatch();
        for (const one of given) batch.add(one);
        expect(batch.size).toBe(given.length);
        const { rows, misses } = batch.take();
        const ids = rows.map((row) =>
          JSON.stringify([row.minute, row.tier, row.host, row.outcome, row.reason ?? null]),
        );
        expect(new Set(ids).size).toBe(rows.length);
        expect(new Set(misses.map((row) => `${row.minute} ${row.key}`)).size).toBe(misses.length);
        expect(batch.size).toBe(0);
      }),
      { numRuns: 100 },
    );
  });

  it('crosses the wire as it is: its JSON parses back to the same batch', () => {
    fc.assert(
      fc.property(records, (given: TierRecord[]) => {
        const taken: StatsBatchJson = batchOf(given);
        expect(parseStatsBatch(JSON.parse(JSON.stringify(taken)))).toEqual({ ok: true, batch: taken });
      }),
      { numRuns: 100 },
    );
  });

  it('gives every row all the Totals fields as numbers', () => {
    fc.assert(
      fc.property(records, (given) => {
        for (const row of batchOf(given).rows)
          for (const field of TOTAL_FIELDS) expect(typeof row[field]).toBe('number');
      }),
      { numRuns: 50 },
    );
  });
});
