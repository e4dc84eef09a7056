// Records and batches for the stats' property tests: integer times (so that sums are exact
// whatever order they are added in), hosts, keys and reasons from pools wide enough to pass
// the bounds, and hostile strings among them.

import fc from 'fast-check';
import { OUTCOMES, type Outcome, type TierRecord } from '../../../shared/stats/record.ts';
import { StatsBatch } from '../../../shared/stats/stats-batch.ts';
import type { StatsBatchJson } from '../../../shared/stats/store-protocol.ts';
import { TIER_NAMES } from '../../../shared/tiers/tiers.ts';

export const BASE = Date.parse('2026-02-03T14:00:00Z');

export function record(overrides: Partial<TierRecord> = {}): TierRecord {
  return {
    tier: 'edge',
    outcome: 'hit',
    status: 200,
    method: 'GET',
    host: 'cdn.example',
    keyPrefix: '/a.png',
    bytesSent: 100,
    bytesFromNextHop: 0,
    bytesFromOrigin: 0,
    ttfbMs: 2,
    durationMs: 3,
    sliced: false,
    slicesHit: 0,
    slicesMissed: 0,
    departed: false,
    at: BASE + 1_000,
    ...overrides,
  };
}

const hostile = fc.constantFrom(
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'",
  '&amp;',
  '(other)',
  '',
  '__proto__',
);

export interface RecordOptions {
  hosts?: number;
  keys?: number;
  reasons?: number;
  minutes?: number;
}

export function recordArb(options: RecordOptions = {}): fc.Arbitrary<TierRecord> {
  const { hosts = 8, keys = 8, reasons = 4, minutes = 3 } = options;
  return fc
    .record({
      tier: fc.constantFrom(...TIER_NAMES),
      outcome: fc.constantFrom<Outcome>(...OUTCOMES),
      reason: fc.option(
        fc.oneof(
          fc.nat(reasons - 1).map((i) => `reason-${i}`),
          hostile,
        ),
        { nil: undefined, freq: 2 },
      ),
      host: fc.oneof(
        { weight: 9, arbitrary: fc.nat(hosts - 1).map((i) => `h${i}.example`) },
        { weight: 1, arbitrary: hostile },
      ),
      keyPrefix: fc.oneof(
        { weight: 9, arbitrary: fc.nat(keys - 1).map((i) => `/k/${i}`) },
        { weight: 1, arbitrary: hostile },
      ),
      bytesSent: fc.nat(2 ** 40),
      bytesFromNextHop: fc.nat(2 ** 40),
      bytesFromOrigin: fc.nat(2 ** 40),
      ttfbMs: fc.nat(10_000),
      durationMs: fc.nat(100_000),
      slicesHit: fc.nat(64),
      slicesMissed: fc.nat(64),
      departed: fc.boolean(),
      at: fc.integer({ min: BASE, max: BASE + minutes * 60_000 - 1 }),
    })
    .map(({ reason, ...rest }) => ({
      ...rest,
      ...(reason === undefined ? {} : { reason }),
      status: 200,
      method: 'GET',
      sliced: rest.slicesHit + rest.slicesMissed > 0,
    }));
}

export function batchOf(records: readonly TierRecord[]): StatsBatchJson {
  const batch = new StatsBatch();
  for (const one of records) batch.add(one);
  return batch.take();
}

export function batchArb(options: RecordOptions = {}, maxLength = 60): fc.Arbitrary<StatsBatchJson> {
  return fc.array(recordArb(options), { maxLength }).map(batchOf);
}
