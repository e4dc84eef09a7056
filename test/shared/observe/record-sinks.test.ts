// The isolate's operations flushed to the stats store (shared/observe/record-sinks.ts) when work that runs past its
// request's record counted them (tellOperations: a prefetch, the R2 tier's puts and walk): sent without a record after
// them, within the interval, as a record would be. A fake namespace records the batches POSTed. record-sinks.ts and the
// tallies keep their state per isolate in module state: every test loads the modules afresh.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ObservabilityConfig } from '../../../shared/config/observability.ts';
import type { StatsSinks } from '../../../shared/observe/record-sinks.ts';
import type { StatsStoreNamespace } from '../../../shared/observe/stats-store-client.ts';
import { tierRecord } from '../../../shared/stats/record.ts';
import type { StatsBatchJson } from '../../../shared/stats/store-protocol.ts';
import { tier } from '../../../shared/tiers/tiers.ts';

type Sinks = typeof import('../../../shared/observe/record-sinks.ts');
let sinksModule: Sinks;
let prefetches: typeof import('../../../shared/observe/prefetch-tally.ts')['isolatePrefetches'];
let r2: typeof import('../../../shared/observe/r2-tally.ts')['isolateR2'];
let hedges: typeof import('../../../shared/observe/hedge-tally.ts')['isolateHedges'];

beforeEach(async () => {
  vi.resetModules();
  sinksModule = await import('../../../shared/observe/record-sinks.ts');
  ({ isolatePrefetches: prefetches } = await import('../../../shared/observe/prefetch-tally.ts'));
  ({ isolateR2: r2 } = await import('../../../shared/observe/r2-tally.ts'));
  ({ isolateHedges: hedges } = await import('../../../shared/observe/hedge-tally.ts'));
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout'] });
  vi.setSystemTime(new Date('2026-12-01T12:00:00.000Z'));
});

afterEach(() => {
  vi.useRealTimers();
});

function fakeStore() {
  const batches: StatsBatchJson[] = [];
  const namespace: StatsStoreNamespace = {
    idFromName: (name) => ({ name }),
    get: () => ({
      async fetch(_url, init) {
        batches.push(JSON.parse(String(init?.body)) as StatsBatchJson);
        return new Response(null, { status: 204 });
      },
    }),
  };
  return { namespace, batches };
}

function sinksOf(store: StatsStoreNamespace, flushMs: number): StatsSinks {
  const observability: ObservabilityConfig = { statsToken: undefined, flushMs, logSample: 0, egressPricePerTB: 7 };
  return { observability, store, analytics: undefined };
}

/** A shield record of one request, as the shield tells it. */
function shieldRecord() {
  return tierRecord({
    tier: 'shield',
    method: 'GET',
    host: 'cdn.test',
    path: '/seg0.ts',
    status: 200,
    headers: new Headers({ 'cache-status': `${tier('shield').statusMember}; fwd=uri-miss`, 'content-length': '10' }),
    bytesFromNextHop: 10,
    bytesFromOrigin: 10,
    at: Date.now(),
    ttfbMs: 1,
    durationMs: 2,
  });
}

function keeper() {
  const kept: Promise<unknown>[] = [];
  return { kept, keepAlive: (promise: Promise<unknown>) => void kept.push(promise) };
}

describe('tellOperations', () => {
  it("sends what was counted after the isolate's last flush with no record after it, within the interval", async () => {
    const store = fakeStore();
    const sinks = sinksOf(store.namespace, 5_000);
    const { keepAlive, kept } = keeper();
    sinksModule.tellRecord(shieldRecord(), sinks, keepAlive);
    await vi.advanceTimersByTimeAsync(0);
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]?.operations).toMatchObject({ tier: 'shield', prefetched: 0, r2Puts: 0 });

    // A prefetch ends a second later, its segment stored; the R2 tier put it; a hedge raced its origin's first byte.
    await vi.advanceTimersByTimeAsync(1_000);
    prefetches.stored('//cdn.test/seg1.ts', 20_000, Date.now(), 10_000);
    r2.put(20_000, 3_600);
    hedges.started();
    sinksModule.tellOperations('shield', sinks, keepAlive);
    // Told twice within the interval: one flush is set for its end, not two.
    sinksModule.tellOperations('shield', sinks, keepAlive);
    expect(kept).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(3_999);
    expect(store.batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.batches).toHaveLength(2);
    expect(store.batches[1]?.rows).toEqual([]);
    expect(store.batches[1]?.operations).toMatchObject({
      tier: 'shield',
      prefetched: 1,
      prefetchBytes: 20_000,
      r2Puts: 1,
      r2PutBytes: 20_000,
      r2StoredByteSeconds: 20_000 * 3_600,
      hedgesStarted: 1,
    });
    // Taken: nothing is left to send, and nothing more goes.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(store.batches).toHaveLength(2);
  });

  it('with STATS_FLUSH_MS 0, sends them at once', async () => {
    const store = fakeStore();
    const { keepAlive, kept } = keeper();
    r2.listed();
    sinksModule.tellOperations('shield', sinksOf(store.namespace, 0), keepAlive);
    await Promise.all(kept);
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]).toMatchObject({ rows: [], misses: [], operations: { tier: 'shield', r2Lists: 1 } });
  });

  it('sends nothing without a store, and a flush with neither records nor operations told sends nothing', async () => {
    const store = fakeStore();
    const { keepAlive, kept } = keeper();
    r2.listed();
    sinksModule.tellOperations('shield', { ...sinksOf(store.namespace, 0), store: undefined }, keepAlive);
    expect(kept).toHaveLength(0);
    await sinksModule.flushStats(store.namespace, 0);
    expect(store.batches).toEqual([]);
  });

  it('counts told as a flush of records starts are sent once: none lost, none twice', async () => {
    const store = fakeStore();
    const sinks = sinksOf(store.namespace, 0);
    const { keepAlive, kept } = keeper();
    r2.read();
    sinksModule.tellRecord(shieldRecord(), sinks, keepAlive);
    sinksModule.tellOperations('shield', sinks, keepAlive);
    await Promise.all(kept);
    // The flush took both the record and the count; told after it started, it goes on and finds nothing more to add.
    expect(store.batches.flatMap((batch) => batch.rows)).toHaveLength(1);
    expect(store.batches.reduce((sum, batch) => sum + (batch.operations?.r2Gets ?? 0), 0)).toBe(1);
  });
});
