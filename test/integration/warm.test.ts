// The warm API (worker/warm.ts, docs/warming.md) through both real workers against the S3 server: a rendition warmed
// from its playlist is a shield hit on every segment's first request and costs the origin each segment once; the
// report; pacing across calls; both tiers; what a playlist names outside its scope; bad input, each a clear 4xx.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../shared/admission/signer.ts';
import { WARM_URLS_PER_CALL } from '../../shared/warm/warm-pacing.ts';
import type { WarmReport } from '../../shared/warm/warm-report.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture } from './fixture.ts';

const PURGE_TOKEN = 'test-purge-token';
const SECRET = 'warm-signing-secret-0123456789abcdef';
const SEGMENTS = 30;
let f: Fixture;

/** Segment `n`'s bytes: a few above the 16 KiB a member says `stored` of, each its own. */
function segment(n: number): string {
  return `segment ${n} `.padEnd(20_000 + n * 7, String.fromCharCode(97 + (n % 26)));
}

function mediaPlaylist(names: readonly string[]): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:4', '#EXT-X-MEDIA-SEQUENCE:0'];
  for (const name of names) lines.push('#EXTINF:4.0,', name);
  return `${[...lines, '#EXT-X-ENDLIST'].join('\n')}\n`;
}

/** Two and a half slices of 1 MiB. */
const LARGE = new Uint8Array(2.5 * 1024 * 1024).map((_, i) => (i * 31) % 251);

/** Byte for byte (a deep equality of megabytes is slow enough to let a kept-alive connection expire). */
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

const names = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, n) => `${prefix}${String(n).padStart(3, '0')}.ts`);

beforeAll(async () => {
  f = await startFixture({
    PURGE_TOKEN,
    SIGNING_KEYS: `k=${SECRET}`,
    SIGNED_PREFIXES: '/paid/',
    SLICE_SIZE: '1MiB',
    LOG_SAMPLE: '0',
  });
  await f.origin.putObject('big/movie.mp4', LARGE, { 'content-type': 'video/mp4' });
  await f.origin.putObject('big/trailer.mp4', LARGE, { 'content-type': 'video/mp4' });
  const put = async (folder: string, count: number): Promise<void> => {
    for (const [n, name] of names('seg', count).entries())
      await f.origin.putObject(`${folder}${name}`, segment(n), { 'content-type': 'video/mp2t' });
    await f.origin.putObject(`${folder}index.m3u8`, mediaPlaylist(names('seg', count)), {
      'content-type': 'application/vnd.apple.mpegurl',
    });
  };
  await put('video/ep1/', SEGMENTS);
  await put('video/ep2/', 3);
  await put('paid/ep1/', 2);
  for (let n = 0; n < 300; n++)
    await f.origin.putObject(`many/${n}.txt`, `object ${n}`, { 'content-type': 'text/plain' });
  await f.origin.putObject(
    'video/mixed/index.m3u8',
    mediaPlaylist(['a.ts', 'https://ads.example/ad.ts', '../ep2/seg000.ts', '/__tiercache/stats', 'b.ts']),
  );
  await f.origin.putObject('video/mixed/a.ts', 'segment a', { 'content-type': 'video/mp2t' });
  // A master playlist: two renditions and an audio one, each with its own segments.
  await f.origin.putObject(
    'show/master.m3u8',
    [
      '#EXTM3U',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="audio/index.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="a"',
      'low/index.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=3000000,AUDIO="a"',
      'high/index.m3u8',
    ].join('\n'),
  );
  for (const rendition of ['low', 'high', 'audio']) await put(`show/${rendition}/`, 2);
  // A DASH manifest: one Representation of five numbered segments and its initialization segment.
  await f.origin.putObject(
    'dash/manifest.mpd',
    `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT20S">
      <Period><AdaptationSet><SegmentTemplate media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4" duration="4"/>
      <Representation id="v" bandwidth="1000000"/></AdaptationSet></Period></MPD>`,
  );
  for (const name of ['init.mp4', '1.m4s', '2.m4s', '3.m4s', '4.m4s', '5.m4s'])
    await f.origin.putObject(`dash/v/${name}`, `dash ${name}`, { 'content-type': 'video/mp4' });
  await f.origin.putObject('video/mixed/b.ts', 'segment b', { 'content-type': 'video/mp2t' });
});
afterAll(() => f?.close());

/** A warm call. */
function warm(body: unknown, init: { token?: string | null; type?: string; method?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': init.type ?? 'application/json' };
  const token = init.token === undefined ? PURGE_TOKEN : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const method = init.method ?? 'POST';
  return request(new URL('/__tiercache/warm', f.stack.url), {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function report(body: unknown): Promise<WarmReport> {
  const answer = await warm(body);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  return JSON.parse(answer.text) as WarmReport;
}

/** The origin's GETs of `key` since the tap was cleared. */
const originGets = (key: string): number =>
  f.tap.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0]?.endsWith(`/${key}`)).length;

describe('the warm API', () => {
  it('warms a rendition from its playlist: every segment is then a shield hit on its first request, fetched from the origin once', async () => {
    f.tap.clear();
    const answer = await report({ prefixes: [{ prefix: '/video/ep1/', playlist: '/video/ep1/index.m3u8' }] });
    const bytes = Array.from({ length: SEGMENTS }, (_, n) => segment(n).length).reduce((a, b) => a + b, 0);
    // The playlist itself is read (stored at the shield) to expand the prefix, then counted as already cached.
    expect(answer).toMatchObject({ tier: 'shield', total: SEGMENTS + 1, from: 0, next: null, done: SEGMENTS + 1 });
    expect(answer.shield).toEqual({ warmed: SEGMENTS, cached: 1, failed: 0, bytes, originBytes: bytes });
    expect(answer).toMatchObject({ skipped: 0, playlists: 1, problems: [] });
    expect(answer.edge).toBeUndefined();
    for (const name of names('seg', SEGMENTS)) expect(originGets(`video/ep1/${name}`), name).toBe(1);
    f.tap.clear();
    for (const [n, name] of names('seg', SEGMENTS).entries()) {
      const got = await f.get(`/video/ep1/${name}`);
      expect(got.status).toBe(200);
      expect(got.text).toBe(segment(n));
      const [shield, edge] = cacheStatus(got);
      expect(shield?.slice(0, 2), name).toEqual(['tiercache-shield', 'hit']);
      expect(edge?.[0]).toBe('tiercache-edge');
      expect(edge).not.toContain('hit');
    }
    expect(f.tap.requests).toEqual([]);
  });

  it('warms a sliced object whole: every slice at the shield, then read without the origin', async () => {
    f.tap.clear();
    const answer = await report({ urls: ['/big/movie.mp4'] });
    expect(answer.shield).toEqual({
      warmed: 1,
      cached: 0,
      failed: 0,
      bytes: LARGE.length,
      originBytes: LARGE.length,
    });
    f.tap.clear();
    const got = await f.get('/big/movie.mp4');
    expect(sameBytes(got.body, LARGE)).toBe(true);
    // Every slice from the shield's store: its member forwards nothing (the edge reports it before the last slice
    // is in, so it says no `hit` either: docs/caching.md "Cache-Status on a sliced object").
    const [shield] = cacheStatus(got);
    expect(shield?.[0]).toBe('tiercache-shield');
    expect(shield?.some((param) => param.startsWith('fwd'))).toBe(false);
    expect(f.tap.requests).toEqual([]);
  });

  it("warms a sliced object into both tiers, the edge's read costed by its slices", async () => {
    f.tap.clear();
    const answer = await report({ tier: 'both', urls: ['/big/trailer.mp4'] });
    expect(answer.shield).toMatchObject({ warmed: 1, failed: 0, originBytes: LARGE.length });
    expect(answer.edge).toMatchObject({ warmed: 1, failed: 0, bytes: LARGE.length, originBytes: 0 });
    // The shield's warm (1) and the edge's read of three slices: a lookup and a manifest, five a slice at most.
    expect(answer.subrequests).toBe(1 + 2 + 3 * 5);
    await settle();
    f.tap.clear();
    const got = await f.get('/big/trailer.mp4');
    expect(sameBytes(got.body, LARGE)).toBe(true);
    expect(cacheStatus(got).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(f.tap.requests).toEqual([]);
  });

  it("warms a master playlist's every rendition, each read in turn for its segments", async () => {
    const answer = await report({ prefixes: [{ prefix: '/show/', playlist: 'master.m3u8' }] });
    // The master, three media playlists and their two segments each.
    expect(answer).toMatchObject({ total: 1 + 3 + 3 * 2, playlists: 4, next: null, skipped: 0 });
    expect(answer.shield).toMatchObject({ warmed: 6, cached: 4, failed: 0 });
    f.tap.clear();
    for (const path of ['/show/low/seg001.ts', '/show/high/seg000.ts', '/show/audio/seg001.ts'])
      expect(cacheStatus(await f.get(path))[0]?.slice(0, 2), path).toEqual(['tiercache-shield', 'hit']);
    expect(f.tap.requests).toEqual([]);
  });

  it('warms what a DASH manifest numbers, its initialization segment first', async () => {
    const answer = await report({ prefixes: [{ prefix: '/dash/', playlist: 'manifest.mpd' }] });
    expect(answer).toMatchObject({ total: 7, next: null });
    expect(answer.shield).toMatchObject({ warmed: 6, cached: 1, failed: 0 });
    f.tap.clear();
    expect((await f.get('/dash/v/5.m4s')).text).toBe('dash 5.m4s');
    expect(f.tap.requests).toEqual([]);
  });

  it('reports what is already cached, and asks the origin nothing for it', async () => {
    await report({ urls: ['/video/ep2/seg000.ts'] });
    f.tap.clear();
    const again = await report({ urls: ['/video/ep2/seg000.ts', new URL('/video/ep2/seg001.ts', f.stack.url).href] });
    expect(again.shield).toMatchObject({ warmed: 1, cached: 1, failed: 0, originBytes: segment(1).length });
    expect(originGets('video/ep2/seg000.ts')).toBe(0);
  });

  it('paces a long list: a call warms at most its share and says where the next one starts', async () => {
    const body = { prefixes: [{ prefix: '/many/', names: Array.from({ length: 300 }, (_, n) => `${n}.txt`) }] };
    const first = await report(body);
    expect(first).toMatchObject({ total: 300, from: 0, next: WARM_URLS_PER_CALL, done: WARM_URLS_PER_CALL });
    expect(first.shield.warmed).toBe(WARM_URLS_PER_CALL);
    expect(first.subrequests).toBeLessThanOrEqual(WARM_URLS_PER_CALL);
    const second = await report({ ...body, from: first.next });
    expect(second).toMatchObject({ total: 300, from: WARM_URLS_PER_CALL, next: null });
    expect(second.shield.warmed).toBe(300 - WARM_URLS_PER_CALL);
    f.tap.clear();
    expect(cacheStatus(await f.get('/many/299.txt'))[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(f.tap.requests).toEqual([]);
  });

  it('warms this location\'s edge too with "both", and says which location', async () => {
    const answer = await report({ tier: 'both', urls: ['/video/ep2/seg002.ts'] });
    expect(answer.location).toMatch(/^[A-Za-z0-9-]+$/);
    expect(answer.shield).toMatchObject({ warmed: 1, failed: 0 });
    expect(answer.edge).toMatchObject({ warmed: 1, cached: 0, failed: 0, bytes: segment(2).length, originBytes: 0 });
    await settle();
    const got = await f.get('/video/ep2/seg002.ts');
    expect(got.text).toBe(segment(2));
    expect(cacheStatus(got).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });

  it("skips what a playlist names on another host, outside its prefix or under the tiers' own paths, and says why", async () => {
    f.tap.clear();
    const answer = await report({ prefixes: [{ prefix: '/video/mixed/', playlist: 'index.m3u8' }] });
    expect(answer).toMatchObject({ total: 6, skipped: 3, next: null });
    expect(answer.shield).toMatchObject({ warmed: 2, cached: 1, failed: 0 });
    const reasons = answer.problems.map((p) => `${p.url} ${p.reason}`).join('\n');
    expect(reasons).toMatch(/ads\.example\/ad\.ts another host/);
    expect(reasons).toMatch(/ep2\/seg000\.ts outside the prefix/);
    expect(reasons).toMatch(/__tiercache\/stats a path the tiers keep/);
    expect(f.tap.requests.filter((r) => r.path.includes('ep2') || r.path.includes('stats'))).toEqual([]);
  });

  it('warms a signed prefix with the purge token: the one shared copy, still refused to a client without a token', async () => {
    const answer = await report({ prefixes: [{ prefix: '/paid/ep1/', playlist: 'index.m3u8' }] });
    expect(answer.shield).toMatchObject({ warmed: 2, cached: 1, failed: 0 });
    expect((await f.get('/paid/ep1/seg000.ts')).status).toBe(403);
    const token = await signToken({ keyId: 'k', secret: SECRET, path: '/paid/ep1/', prefix: true, expires: 4e9 });
    f.tap.clear();
    const got = await f.get(`/paid/ep1/seg001.ts?${token}`);
    expect(got.text).toBe(segment(1));
    expect(cacheStatus(got)[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(f.tap.requests).toEqual([]);
  });
});

describe('the warm API refuses bad input with a clear 4xx, never a 500', () => {
  it('refuses a missing or wrong token with 401 and WWW-Authenticate', async () => {
    for (const token of [null, 'wrong-token', `${PURGE_TOKEN}x`]) {
      const answer = await warm({ urls: ['/video/ep2/seg000.ts'] }, { token });
      expect(answer.status, String(token)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
  });

  it('refuses other methods with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const answer = await warm({ urls: ['/a'] }, { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });

  it('refuses a body that is not JSON, not declared as JSON, or not a warm', async () => {
    const cases: [unknown, RegExp][] = [
      ['urls=/a', /not JSON/],
      [{}, /nothing to warm/],
      [{ urls: '/a' }, /"urls" to be an array of strings/],
      [{ urls: ['/a'], tier: 'everywhere' }, /"tier" to be "shield" or "both"/],
      [{ urls: ['/a'], from: -1 }, /"from"/],
      [{ prefixes: [{ prefix: '/video/' }] }, /never listed/],
      [{ prefixes: [{ prefix: '/video/', playlist: '/video/a.txt' }] }, /HLS \(\.m3u8\) or DASH \(\.mpd\)/],
      [{ prefixes: [{ prefix: '/many/', names: ['../video/ep2/seg000.ts'] }] }, /outside the prefix/],
      [{ urls: ['https://elsewhere.example/video/ep2/seg000.ts'] }, /another host/],
      [{ urls: ['/__tiercache/stats'] }, /tiers keep for themselves/],
      [{ urls: ['/x/..%2F__tiercache/purge'] }, /tiers keep for themselves/],
      [{ urls: ['ftp://files.example/a'] }, /not an http\(s\) URL/],
      [{ urls: ['/video/ep2/seg000.ts'], from: 2 }, /"from" to be at most 1/],
    ];
    for (const [body, message] of cases) {
      const answer = await warm(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.text, JSON.stringify(body)).toMatch(message);
    }
    expect((await warm({ urls: ['/a'] }, { type: 'text/plain' })).status).toBe(415);
  });

  it('reports a playlist that cannot be read as a failure of the warm, not an error of the call', async () => {
    const answer = await report({ prefixes: [{ prefix: '/nowhere/', playlist: 'index.m3u8' }] });
    expect(answer.shield.failed).toBe(1);
    expect(answer.problems[0]).toMatchObject({ tier: 'shield', status: 404 });
  });
});
