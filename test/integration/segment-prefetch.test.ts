// The next segments at the shield (shield/segment-prefetch.ts, docs/warming.md), through both real workers against the
// S3 server: a rendition's playlist read, then its first segment, and the segments after it are shield hits before any
// client asks, each fetched from the origin once; a viewer who stops costs no more than the budget; a rendition whose
// playlist never passed through is not guessed at; a prefetched segment nobody reads is counted wasted in stats.json;
// with PREFETCH_SEGMENTS=0, not one request more reaches the origin. And the slices of a large MP4 read from its start
// are fetched ahead of the reader by the existing read-ahead.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, settle, startFixture, until } from './fixture.ts';

const STATS_TOKEN = 'test-stats-token';
const SEGMENTS = 12;
const TARGET_SECONDS = 4;

/** Segment `n` of rendition `name`: over 16 KiB, each its own bytes. */
function segment(name: string, n: number): string {
  return `${name} segment ${n} `.padEnd(20_000 + n * 11, String.fromCharCode(97 + (n % 26)));
}

function mediaPlaylist(count: number): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${TARGET_SECONDS}`, '#EXT-X-MEDIA-SEQUENCE:0'];
  for (let n = 0; n < count; n++) lines.push(`#EXTINF:${TARGET_SECONDS}.0,`, `seg${n}.ts`);
  return `${[...lines, '#EXT-X-ENDLIST'].join('\n')}\n`;
}

async function putRendition(f: Fixture, folder: string, withPlaylist = true): Promise<void> {
  for (let n = 0; n < SEGMENTS; n++)
    await f.origin.putObject(`${folder}seg${n}.ts`, segment(folder, n), { 'content-type': 'video/mp2t' });
  if (withPlaylist)
    await f.origin.putObject(`${folder}index.m3u8`, mediaPlaylist(SEGMENTS), {
      'content-type': 'application/vnd.apple.mpegurl',
    });
}

/** The origin's GETs of the objects under `folder` whose names match `name`. */
function originGets(f: Fixture, folder: string, name = /seg\d+\.ts$/): string[] {
  return f.tap.requests
    .filter((r) => r.method === 'GET' && r.path.includes(`/${folder}`) && name.test(r.path.split('?')[0] ?? ''))
    .map((r) => r.path.split('/').pop() ?? '');
}

function shieldMember(answer: Answer): string[] {
  return cacheStatus(answer).find((member) => member[0] === 'tiercache-shield') ?? [];
}

/** A client's read of segment `n` of `folder`, checked byte for byte. */
async function readSegment(f: Fixture, folder: string, n: number): Promise<Answer> {
  const answer = await f.get(`/${folder}seg${n}.ts`);
  expect(answer.status).toBe(200);
  expect(answer.text).toBe(segment(folder, n));
  return answer;
}

describe('segment prefetching at the shield (PREFETCH_SEGMENTS=3, the default)', () => {
  let f: Fixture;
  const clock = new FakeClock();
  beforeAll(async () => {
    f = await startFixture({ LOG_SAMPLE: '0', STATS_TOKEN, STATS_FLUSH_MS: '0' }, { clock });
    for (const folder of ['start/', 'stops/', 'unknown/']) await putRendition(f, folder, folder !== 'unknown/');
  });
  afterAll(() => f?.close());

  it('warms the next three segments once a player starts a rendition: each a shield hit on its first request, fetched from the origin once', async () => {
    f.tap.clear();
    expect((await f.get('/start/index.m3u8')).status).toBe(200);
    await readSegment(f, 'start/', 0);
    await until(() => originGets(f, 'start/').length === 4);
    await settle(300);
    expect(originGets(f, 'start/').sort()).toEqual(['seg0.ts', 'seg1.ts', 'seg2.ts', 'seg3.ts']);
    for (const n of [1, 2, 3]) {
      const answer = await readSegment(f, 'start/', n);
      expect(shieldMember(answer)).toContain('hit');
    }
    // Read at once after each other, the player is filling its buffer: three ahead of each read.
    await until(() => originGets(f, 'start/').length === 7);
    await settle(300);
    expect(originGets(f, 'start/').sort()).toEqual(Array.from({ length: 7 }, (_, n) => `seg${n}.ts`).sort());
    // Every segment the origin sent, it sent once.
    expect(new Set(originGets(f, 'start/')).size).toBe(originGets(f, 'start/').length);
  });

  it('warms one ahead of a player reading in real time, and nothing past the budget once the viewer stops', async () => {
    f.tap.clear();
    await f.get('/stops/index.m3u8');
    await readSegment(f, 'stops/', 0);
    await until(() => originGets(f, 'stops/').length === 4);
    await settle(300);
    // A segment's duration later: the player plays in real time, one ahead.
    for (const n of [1, 2, 3, 4]) {
      // The prefetch the read before started has the time a segment plays (here a moment) to land.
      await settle(300);
      clock.advance(TARGET_SECONDS);
      const member = shieldMember(await readSegment(f, 'stops/', n));
      expect(member, `segment ${n}: ${member.join('; ')}`).toContain('hit');
    }
    await until(() => originGets(f, 'stops/').length === 6);
    await settle(500);
    // Segments 0–3 at the start, then 4 and 5, one ahead of the reads of 3 and 4; then the viewer stops.
    expect(originGets(f, 'stops/').sort()).toEqual(Array.from({ length: 6 }, (_, n) => `seg${n}.ts`).sort());
    clock.advance(60);
    await settle(500);
    expect(originGets(f, 'stops/')).toHaveLength(6);
  });

  it('prefetches nothing for a segment whose playlist never passed through the shield', async () => {
    f.tap.clear();
    await readSegment(f, 'unknown/', 0);
    await readSegment(f, 'unknown/', 1);
    await settle(500);
    expect(originGets(f, 'unknown/').sort()).toEqual(['seg0.ts', 'seg1.ts']);
  });
});

describe('segment prefetching in the stats', () => {
  let f: Fixture;
  const clock = new FakeClock();
  beforeAll(async () => {
    f = await startFixture({ LOG_SAMPLE: '0', STATS_TOKEN, STATS_FLUSH_MS: '0' }, { clock });
    await putRendition(f, 'wasted/');
    await putRendition(f, 'other/', false);
  });
  afterAll(() => f?.close());

  it('counts a prefetched segment nobody read as wasted in stats.json, and the ones read as used', async () => {
    const before = await prefetchCounts(f);
    f.tap.clear();
    await f.get('/wasted/index.m3u8');
    await readSegment(f, 'wasted/', 0);
    await until(() => originGets(f, 'wasted/').length === 4);
    await settle(300);
    clock.advance(TARGET_SECONDS);
    await readSegment(f, 'wasted/', 1);
    // Segments 2 and 3 are never read: past their window (PREFETCH_SEGMENTS + 3 durations), they are wasted.
    clock.advance((3 + 3) * TARGET_SECONDS + 1);
    // Any read reaching the shield looks its prefetches over (the playlist is the edge's hit by now).
    await readSegment(f, 'other/', 5);
    await settle(300);
    const after = await prefetchCounts(f);
    const bytes = (n: number): number => segment('wasted/', n).length;
    expect(after.prefetched - before.prefetched).toBe(3);
    expect(after.prefetchBytes - before.prefetchBytes).toBe(bytes(1) + bytes(2) + bytes(3));
    expect(after.prefetchesUsed - before.prefetchesUsed).toBe(1);
    expect(after.prefetchesWasted - before.prefetchesWasted).toBe(2);
    expect(after.prefetchWastedBytes - before.prefetchWastedBytes).toBe(bytes(2) + bytes(3));
  });

  async function prefetchCounts(fixture: Fixture): Promise<StatsJson['cost']['windowOperations']> {
    await settle(300);
    const answer = await fixture.get('/__tiercache/stats.json', {
      headers: { authorization: `Bearer ${STATS_TOKEN}` },
    });
    expect(answer.status).toBe(200);
    return (JSON.parse(answer.text) as StatsJson).cost.windowOperations;
  }
});

describe('segment prefetching off (PREFETCH_SEGMENTS=0)', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ LOG_SAMPLE: '0', PREFETCH_SEGMENTS: '0' });
    await putRendition(f, 'off/');
  });
  afterAll(() => f?.close());

  it('makes not one origin request more than the client asked for', async () => {
    f.tap.clear();
    await f.get('/off/index.m3u8');
    for (const n of [0, 1, 2]) await readSegment(f, 'off/', n);
    await settle(500);
    expect(originGets(f, 'off/').sort()).toEqual(['seg0.ts', 'seg1.ts', 'seg2.ts']);
  });
});

describe('a large MP4 read in order: the existing read-ahead, no playlist needed', () => {
  const MIB = 1024 * 1024;
  const MOVIE = new Uint8Array(8 * MIB).map((_, i) => (i * 7) % 251);
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ LOG_SAMPLE: '0', SLICE_SIZE: '1MiB' });
    await f.origin.putObject('mp4/open.mp4', MOVIE, { 'content-type': 'video/mp4' });
    await f.origin.putObject('mp4/ranges.mp4', MOVIE, { 'content-type': 'video/mp4' });
  });
  afterAll(() => f?.close());

  /** The origin's ranged GETs of `name`: the first byte of each. */
  const originStarts = (name: string): number[] =>
    f.tap.requests
      .filter((r) => r.method === 'GET' && r.path.includes(name))
      .map((r) => Number(/^bytes=(\d+)-/.exec(r.headers.range ?? '')?.[1] ?? 0))
      .sort((a, b) => a - b);

  it("has the shield fetch the slices after a player's first from the origin while the player has read only the start", async () => {
    f.tap.clear();
    const response = await fetch(new URL('/mp4/open.mp4', f.stack.url), { headers: { range: 'bytes=0-' } });
    expect(response.status).toBe(206);
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(first?.value?.byteLength).toBeGreaterThan(0);
    // The player holds its connection and reads no more; the slices after the first are on their way all the same.
    await until(() => originStarts('open.mp4').length >= 4, 5000);
    expect(originStarts('open.mp4').slice(0, 4)).toEqual([0, 1, 2, 3].map((n) => n * MIB));
    await reader?.cancel();
  });

  it('answers consecutive short ranges inside a slice from the one fetch of that slice', async () => {
    f.tap.clear();
    for (const start of [0, 200_000, 400_000, 600_000]) {
      const answer = await f.get('/mp4/ranges.mp4', { headers: { range: `bytes=${start}-${start + 199_999}` } });
      expect(answer.status).toBe(206);
      expect(Buffer.compare(answer.body, MOVIE.subarray(start, start + 200_000))).toBe(0);
    }
    await settle(300);
    expect(originStarts('ranges.mp4')).toEqual([0]);
  });
});
