// shared/cost/refresh-design.ts: the designs are the purge code's own constants, and the operations each makes per
// tier: head gets per location or per isolate, lists per head change and per safety interval, writes per purge.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AFTER,
  AFTER_WITHOUT_CACHE_API,
  BEFORE,
  DEPLOYED_DESIGN,
  listsPerHeadChange,
  refreshOperations,
  SNAPSHOT_WRITES_PER_PURGE,
  type TierLoad,
} from '../../../shared/cost/refresh-design.ts';
import { DEPLOYED_INTERVALS } from '../../../shared/cost/traffic-mix.ts';
import { KV_PROPAGATION_MS } from '../../../shared/purge/purge-bounds.ts';
import { HEAD_SETTLE_MS, SAFETY_LIST_MS, SHARE_MS } from '../../../shared/purge/purge-head.ts';
import { SNAPSHOT_AFTER } from '../../../shared/purge/purge-snapshot.ts';
import { REFRESH_MS } from '../../../shared/purge/purge-store.ts';

const HOUR = 3_600_000;
/** A tier whose isolates each get a request every millisecond: every interval ends with a re-read at once. */
const busy = (isolates: number, locations: number, tier: TierLoad['tier'] = 'edge'): TierLoad => ({
  tier,
  requests: isolates * HOUR,
  flushed: isolates * HOUR,
  isolates,
  locations,
});

describe('the designs', () => {
  it('price the code that runs: after, with the purge head’s own intervals (shared/purge/purge-head.ts)', () => {
    expect(DEPLOYED_DESIGN).toBe(AFTER);
    expect(AFTER.shareMs).toBe(SHARE_MS);
    expect(AFTER.safetyListMs).toBe(SAFETY_LIST_MS);
    expect(AFTER.safetyListMs).toBe(60_000);
    expect(AFTER.settleListMs).toBe(KV_PROPAGATION_MS + HEAD_SETTLE_MS);
    expect(AFTER.statsShards).toBe(16);
    expect(SNAPSHOT_WRITES_PER_PURGE).toBe(2 / SNAPSHOT_AFTER);
    expect(DEPLOYED_INTERVALS.refreshMs).toBe(REFRESH_MS);
  });
});

describe('refreshOperations', () => {
  const run = (tiers: TierLoad[], design = AFTER, purges = 0) =>
    refreshOperations(tiers, HOUR, purges, design, DEPLOYED_INTERVALS);

  it('before: one list per busy isolate per REFRESH_MS, no get', () => {
    const { operations } = run([busy(10, 10)], BEFORE);
    expect(operations.kvLists).toBeCloseTo((10 * HOUR) / REFRESH_MS, -1);
    expect(operations.kvReads).toBe(0);
  });

  it('after, no purge: 24 head gets a minute per busy location however many isolates, one safety list per isolate-minute', () => {
    for (const perLocation of [1, 4, 16]) {
      const { operations } = run([busy(6 * perLocation, 6)]);
      const minutes = HOUR / 60_000;
      // One isolate alone re-reads every REFRESH_MS and reads KV each time: 12 a minute; more share it, at most 24.
      expect(operations.kvReads / minutes / 6).toBeCloseTo(perLocation === 1 ? 12 : 24, 0);
      expect(operations.kvLists / minutes / (6 * perLocation)).toBeCloseTo(1, 1);
    }
  });

  it('after, where the Cache API keeps nothing: a head get per isolate per re-read, at the shield too', () => {
    const tiers = [busy(64, 4), busy(4, 1, 'shield')];
    const alone = run(tiers, AFTER_WITHOUT_CACHE_API).operations;
    expect(alone.kvReads).toBeCloseTo(run(tiers, BEFORE).operations.kvLists, 6);
    // The shield's head is read per isolate in AFTER too: its Cache API is not documented to work.
    expect(run([busy(4, 1, 'shield')]).operations.kvReads).toBeCloseTo(alone.kvReads * (4 / 68), -1);
  });

  it('after, a purge: two writes, a snapshot’s share, and about 14 lists at each busy isolate; never a list per re-read more', () => {
    const quiet = run([busy(10, 10)]);
    const purged = run([busy(10, 10)], AFTER, 1);
    expect(purged.kvWrites).toBeCloseTo(2 + 2 / SNAPSHOT_AFTER, 9);
    const lists = (purged.operations.kvLists - quiet.operations.kvLists) / 10;
    expect(lists).toBeGreaterThan(13);
    expect(lists).toBeLessThanOrEqual(Math.ceil((KV_PROPAGATION_MS + HEAD_SETTLE_MS) / REFRESH_MS) + 1);
    const flood = run([busy(10, 10)], AFTER, 1_000_000);
    expect(flood.operations.kvLists).toBeCloseTo(run([busy(10, 10)], BEFORE).operations.kvLists, 6);
  });

  it('never lists more than before, never reads the head more often than each isolate would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        fc.integer({ min: 0, max: 10_000 }),
        (isolates, locations, requests, purges) => {
          const tier: TierLoad = { tier: 'edge', requests, flushed: requests, isolates, locations };
          const before = run([tier], BEFORE).operations;
          const after = run([tier], AFTER, purges).operations;
          const alone = run([tier], AFTER_WITHOUT_CACHE_API, purges).operations;
          expect(after.kvLists).toBeLessThanOrEqual(before.kvLists * (1 + 1e-9));
          expect(after.kvReads).toBeLessThanOrEqual(alone.kvReads * (1 + 1e-9));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('listsPerHeadChange', () => {
  it('is 1 + the re-reads within the settle window: about 13.4 for a busy isolate, at most ⌈62 s / 5 s⌉ + 1, 1 for a quiet one', () => {
    const settle = KV_PROPAGATION_MS + HEAD_SETTLE_MS;
    expect(listsPerHeadChange(busy(1, 1), HOUR, settle, REFRESH_MS)).toBeCloseTo(1 + 62 / 5, 2);
    const quiet: TierLoad = { tier: 'edge', requests: 1, flushed: 1, isolates: 1, locations: 1 };
    expect(listsPerHeadChange(quiet, HOUR, settle, REFRESH_MS)).toBeCloseTo(1, 1);
    expect(listsPerHeadChange({ ...quiet, requests: 0 }, HOUR, settle, REFRESH_MS)).toBe(0);
  });
});
