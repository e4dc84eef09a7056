import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KV_PROPAGATION_MS,
  PLATFORM_BOUND_BASIS,
  PLATFORM_REACHES,
  purgeBound,
  purgeBoundBasis,
  REACHES_EVERY_LOCATION_WITHIN,
  RECORDS_BOUND_BASIS,
  RECORDS_REACH_MS,
  recordsReach,
  servedList,
} from '../../../shared/purge/purge-bounds.ts';
import { NO_PURGES, type PurgeList, purgedBy, REFRESH_MS } from '../../../shared/purge/purge-rules.ts';

const T0 = 1_800_000_000_000;
const entry = (originAt: number) => ({ meta: { storedAt: originAt, originAt }, headers: new Headers() });

describe('purgeBound: the bound a purge answer states for the whole purge', () => {
  it('is the platform’s only when it took the purge and the memory layer is off', () => {
    expect(purgeBound(true, false)).toBe('150ms');
    expect(purgeBound(true, true)).toBe(REACHES_EVERY_LOCATION_WITHIN);
    expect(purgeBound(false, false)).toBe(REACHES_EVERY_LOCATION_WITHIN);
    expect(purgeBound(false, true)).toBe(REACHES_EVERY_LOCATION_WITHIN);
  });

  it('is the platform’s only when every layer that answers a client in another isolate is one the platform reaches', () => {
    for (const memoryLayer of [true, false]) {
      const answering = recordsReach(memoryLayer).filter((layer) => layer !== 'shield Cache API');
      const covered = answering.every((layer) => PLATFORM_REACHES.includes(layer));
      expect(purgeBound(true, memoryLayer) === '150ms', `memory layer ${memoryLayer}`).toBe(covered);
    }
  });

  it('states the records as KV’s propagation plus the re-read interval (65 s)', () => {
    expect(RECORDS_REACH_MS).toBe(KV_PROPAGATION_MS + REFRESH_MS);
    expect(REACHES_EVERY_LOCATION_WITHIN).toBe('65s');
  });

  it('states each bound as the platform states its own: typical figures, quoted from the page that gives them', () => {
    expect(RECORDS_BOUND_BASIS).toBe(
      'Workers KV: changes "may take up to 60 seconds or more to be visible in other locations" (https://developers.cloudflare.com/kv/concepts/how-kv-works/), then each isolate\'s re-read every 5s',
    );
    expect(PLATFORM_BOUND_BASIS).toBe(
      'Cloudflare Instant Purge: "less than 150ms on average (P50)" (https://blog.cloudflare.com/instant-purge/); "updates to your content are reflected immediately" (https://developers.cloudflare.com/cache/how-to/purge-cache/)',
    );
    expect(purgeBoundBasis(true, false)).toBe(PLATFORM_BOUND_BASIS);
    for (const [platformTook, memoryLayer] of [
      [true, true],
      [false, false],
      [false, true],
    ] as const)
      expect(purgeBoundBasis(platformTook, memoryLayer)).toBe(RECORDS_BOUND_BASIS);
  });

  it('has the records reach the memory layer when it is on, and never the platform', () => {
    expect(recordsReach(true)).toContain('edge memory');
    expect(recordsReach(false)).not.toContain('edge memory');
    expect(PLATFORM_REACHES).not.toContain('edge memory');
  });
});

describe('servedList: what a copy vouches for until its next re-read', () => {
  const list: PurgeList = { records: [{ kind: 'url', value: '/a', at: T0 }], vouchedSince: -Infinity };

  it('is the list itself after a read that succeeded (complete up to its horizon)', () => {
    expect(servedList(list, T0 - KV_PROPAGATION_MS, T0)).toBe(list);
  });

  it('after a read that failed, vouches for nothing from before that read’s horizon, and keeps every record', () => {
    const served = servedList(list, -Infinity, T0);
    expect(served.records).toBe(list.records);
    expect(served.vouchedSince).toBe(T0 - KV_PROPAGATION_MS);
    expect(servedList(NO_PURGES, -Infinity, T0).vouchedSince).toBe(T0 - KV_PROPAGATION_MS);
  });

  it('never lowers a floor the list already has', () => {
    const high = { records: [], vouchedSince: T0 };
    expect(servedList(high, -Infinity, T0)).toBe(high);
  });

  it('keeps the bound: whatever the copy holds complete, an entry older than a purge made the bound before any lookup until the next re-read counts as purged', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 * RECORDS_REACH_MS }),
        fc.integer({ min: 0, max: 10 * RECORDS_REACH_MS }),
        fc.integer({ min: 0, max: REFRESH_MS - 1 }),
        (behind, purgedBefore, sinceRead) => {
          const readAt = T0;
          // The copy holds every purge written up to `complete` and nothing after: the read at readAt failed.
          const complete = readAt - KV_PROPAGATION_MS - behind - 1;
          const lookup = readAt + sinceRead;
          // A purge of everything the copy never heard of, made the bound before the lookup or earlier.
          const purge = Math.min(lookup - RECORDS_REACH_MS - purgedBefore, lookup - RECORDS_REACH_MS);
          if (purge <= complete) return;
          expect(purgedBy(servedList(NO_PURGES, complete, readAt), '/any')(entry(purge))).toBe(true);
        },
      ),
    );
  });
});
