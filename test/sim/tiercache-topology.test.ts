// tiercache on a small topology (bench/sim/tiercache-system.ts): two edge locations, each a workerd process of its own
// with two copies of the edge, one shield process, every link shaped, one modelled KV namespace and one stats store
// for all. Correctness only: the bytes, which tier answered, when a purge reaches the other location on the modelled
// KV's clock, and what was counted; no timing is asserted (speed is `npm run sim`'s).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIELD_LOCATION, startTiercacheSystem, type TiercacheSystem } from '../../bench/sim/tiercache-system.ts';
import { defaultTopology } from '../../bench/sim/topology.ts';
import { REFRESH_MS } from '../../shared/purge/purge-rules.ts';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { patternBytes, sha256 } from '../integration/bytes.ts';
import { type Answer, cacheStatus, FakeClock, request, settle } from '../integration/fixture.ts';
import { type Site, startSite } from '../integration/http-site.ts';

const MiB = 1024 * 1024;
/** Long enough that the test moves the clock across it, never waits it out. */
const KV_DELAY_MS = 30_000;
const PAGE_V1 = new TextEncoder().encode('<!doctype html><title>version 1</title>\n');
const PAGE_V2 = new TextEncoder().encode('<!doctype html><title>version 2, after the purge</title>\n');
/** Over SLICE_SIZE (1 MiB here): moved and kept as three slices, the last one short. */
const CLIP = patternBytes(37, 2.5 * MiB);

let site: Site;
let system: TiercacheSystem;
const clock = new FakeClock();
/** Object GETs sent to the locations, for the stats' count. */
let gets = 0;

/** A GET at location `at` (0: ams, 1: iad), through its client link. */
function get(at: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const location = system.locations[at];
  if (location === undefined) throw new Error(`no location ${at}`);
  gets += 1;
  return request(new URL(path, location.url), { headers });
}

/** The first parameter of a tier's Cache-Status member: `hit`, or `fwd=…` (RFC 9211 §2). */
function verdict(answer: Answer, tier: 'edge' | 'shield'): string | undefined {
  return cacheStatus(answer).find((member) => member[0] === `tiercache-${tier}`)?.[1];
}

/** The origin's GETs of a path. */
function originGets(path: string): number {
  return site.received.filter((received) => received.method === 'GET' && received.path === path).length;
}

const pageHeaders = (version: string) => ({
  'content-type': 'text/html',
  'cache-control': 'public, max-age=86400',
  etag: `"${version}"`,
});

beforeAll(async () => {
  site = await startSite();
  site.page('/page.html', PAGE_V1, pageHeaders('v1'));
  site.page('/media/clip.bin', CLIP, { ...pageHeaders('clip'), 'content-type': 'video/mp4', 'accept-ranges': 'bytes' });
  system = await startTiercacheSystem(
    defaultTopology({ locations: 2, isolatesPerLocation: 2, kvPropagationMs: KV_DELAY_MS, latencyScale: 0.05 }),
    { url: site.url },
    { clock: clock.now, config: { SLICE_SIZE: '1MiB' } },
  );
});
afterAll(async () => {
  await system?.stop();
  await site?.close();
});

describe('tiercache on two locations and one shield', () => {
  it('runs each location behind a link of its own, with its copies of the edge', () => {
    expect(system.locations.map((location) => location.name)).toEqual(['ams', 'iad']);
    expect(new Set(system.locations.map((location) => location.url)).size).toBe(2);
    expect(system.isolateNames).toEqual([
      ['edge-1', 'edge-2'],
      ['edge-1', 'edge-2'],
    ]);
  });

  it("answers the second location's first read from the shield's cache, the origin asked once, the bytes right", async () => {
    const atAms = await get(0, '/page.html');
    expect(atAms.status).toBe(200);
    expect(atAms.body).toEqual(PAGE_V1);
    expect([verdict(atAms, 'edge'), verdict(atAms, 'shield')]).toEqual(['fwd=uri-miss', 'fwd=uri-miss']);
    await settle();

    const atIad = await get(1, '/page.html');
    expect(atIad.body).toEqual(PAGE_V1);
    expect([verdict(atIad, 'edge'), verdict(atIad, 'shield')]).toEqual(['fwd=uri-miss', 'hit']);
    await settle();
    // The other copy at iad: the location's cache is shared by its isolates.
    const again = await get(1, '/page.html');
    expect(again.body).toEqual(PAGE_V1);
    expect(verdict(again, 'edge')).toBe('hit');
    expect(originGets('/page.html')).toBe(1);
  });

  it('reads a sliced object at the second location from the shield slice by slice, the origin asked once per slice', async () => {
    const atAms = await get(0, '/media/clip.bin');
    expect(sha256(atAms.body)).toBe(sha256(CLIP));
    await settle(300);
    const read = originGets('/media/clip.bin');
    expect(read).toBe(3);
    for (const start of [0, MiB, 2 * MiB]) {
      const slice = await get(1, '/media/clip.bin', { range: `bytes=${start}-${start + 99}` });
      expect(slice.status, `at ${start}`).toBe(206);
      expect(slice.body, `at ${start}`).toEqual(CLIP.subarray(start, start + 100));
      expect(verdict(slice, 'shield'), `at ${start}`).toBe('hit');
    }
    const whole = await get(1, '/media/clip.bin');
    expect(sha256(whole.body)).toBe(sha256(CLIP));
    expect(originGets('/media/clip.bin')).toBe(read);
  });

  it('takes a purge at one location to the other once the modelled KV delay has passed, and not before', async () => {
    site.page('/page.html', PAGE_V2, pageHeaders('v2'));
    await system.purge?.('/page.html', 0);
    const atAms = await get(0, '/page.html');
    expect(atAms.body).toEqual(PAGE_V2);
    expect(originGets('/page.html')).toBe(2);

    // Past each isolate's refresh, short of KV's delay: iad re-reads the list, the purge is not in it yet.
    clock.advance((REFRESH_MS + 1000) / 1000);
    for (const copy of ['first', 'second']) {
      const early = await get(1, '/page.html');
      expect(early.body, `${copy} copy`).toEqual(PAGE_V1);
      expect(verdict(early, 'edge'), `${copy} copy`).toBe('hit');
    }

    clock.advance(KV_DELAY_MS / 1000);
    for (const copy of ['first', 'second']) {
      const late = await get(1, '/page.html');
      expect(late.body, `${copy} copy`).toEqual(PAGE_V2);
      expect(verdict(late, 'edge'), `${copy} copy`).not.toBe('hit');
      await settle();
    }
    // iad's misses were the shield's hits: it had v2 from ams's read.
    expect(originGets('/page.html')).toBe(2);
  });

  it('counts the purge list’s KV operations per isolate: every isolate read it, and only the purging location wrote', () => {
    const byIsolate = system.kv.byIsolate();
    const names = byIsolate.map((counts) => `${counts.location}/${counts.isolate}`).sort();
    expect(names).toEqual(['ams/edge-1', 'ams/edge-2', 'iad/edge-1', 'iad/edge-2', `${SHIELD_LOCATION}/shield`]);
    for (const counts of byIsolate) expect(counts.lists + counts.reads, counts.isolate).toBeGreaterThan(0);
    const writers = byIsolate.filter((counts) => counts.writes > 0).map((counts) => counts.location);
    expect(new Set(writers)).toEqual(new Set(['ams']));
    const operations = system.operations?.();
    expect(operations?.kvWrites).toBeGreaterThan(0);
    expect(operations?.isolates).toBe(5);
  });

  it('gathers every isolate’s counts in the one stats store: stats.json counts each GET the locations served', async () => {
    const stats = (await system.stats?.()) as StatsJson;
    expect(stats.tiers.edge.totals.requests).toBe(gets);
    // Each of the five isolates that served flushed at least one batch through the relay.
    expect(system.operations?.().storeRequests).toBeGreaterThanOrEqual(5);
  });
});
