// The shield's two cache modes through the real workers (docs/deploying.md "Two shield cache modes"): a second edge
// location, a workerd process of its own with its own cache (local/location.ts), reads what the first location read,
// and the shield answers its misses from its own cache; the origin (s3rver behind the recording tap) is not asked
// again. In 'cache-api' mode the second location reaches the shield by SHIELD_URL; in the default mode, by its SHIELD
// service binding to the shield's address.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEALTH_PATH } from '../../shared/request/reserved-paths.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
/** Larger than SLICE_SIZE (1 MiB here): moved and cached as four slices, the last one short. */
const CLIP = patternBytes(36, 3.5 * MiB);
const PAGE = new TextEncoder().encode('<!doctype html><title>two locations</title>\n');

/** The members of an answer's Cache-Status, by cache name. */
function members(answer: Answer): Map<string, string[]> {
  return new Map(cacheStatus(answer).map((member) => [member[0] ?? '', member.slice(1)]));
}

/** What the origin served of `key` (GETs only: the health probe's HEADs are not reads of an object). */
function originReads(f: Fixture, key: string): number {
  return f.tap.requests.filter((r) => r.method === 'GET' && r.path === `/${f.origin.bucket}/${key}`).length;
}

/** A GET at the second location. */
function atB(f: Fixture, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const base = f.stack.secondLocationUrl;
  if (base === undefined) throw new Error('the stack has no second location');
  return request(new URL(path, base), { headers });
}

describe("'cache-api' mode: a second location reaches the shield by SHIELD_URL, and its miss is the shield's hit", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture(
      // No Workers Cache in front of the shield: its cache is its Cache API alone.
      { SLICE_SIZE: '1MiB', SHIELD_WORKERS_CACHE: 'off' } as Parameters<typeof startFixture>[0],
      { secondLocation: { reach: 'url' } },
    );
    await f.origin.putObject('site/index.html', PAGE, { 'content-type': 'text/html' });
    await f.origin.putObject('media/clip.bin', CLIP, { 'content-type': 'video/mp4' });
  });
  afterAll(() => f?.close());

  it('runs the second location as its own process, on a port of its own', () => {
    expect(f.stack.secondLocationUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(f.stack.secondLocationUrl).not.toBe(f.stack.url);
  });

  it('answers location B’s miss of a whole object from the shield’s cache: B’s edge misses, the shield hits, the origin is not asked again', async () => {
    f.tap.clear();
    const atA = await f.get('/site/index.html');
    expect(atA.status).toBe(200);
    expect(members(atA).get('tiercache-shield')?.[0]).toBe('fwd=uri-miss');
    expect(originReads(f, 'site/index.html')).toBe(1);
    await settle();

    const fromB = await atB(f, '/site/index.html');
    expect(fromB.status).toBe(200);
    expect(sha256(fromB.body)).toBe(sha256(PAGE));
    expect(members(fromB).get('tiercache-edge')?.[0]).toBe('fwd=uri-miss');
    expect(members(fromB).get('tiercache-shield')).toEqual(
      expect.arrayContaining(['hit', 'tiercache-store=cache-api']),
    );
    expect(originReads(f, 'site/index.html')).toBe(1);
  });

  it("answers each slice of a sliced object B has never seen from the shield's cache, the origin read once per slice in all", async () => {
    f.tap.clear();
    const whole = await f.get('/media/clip.bin');
    expect(sha256(whole.body)).toBe(sha256(CLIP));
    await settle(300);
    const readAtA = originReads(f, 'media/clip.bin');
    // Each slice once, and nothing more.
    expect(readAtA).toBe(4);

    for (let slice = 0; slice < 4; slice++) {
      const start = slice * MiB;
      const answer = await atB(f, '/media/clip.bin', { range: `bytes=${start}-${start + 9}` });
      expect(answer.status, `slice ${slice}`).toBe(206);
      expect(sha256(answer.body), `slice ${slice}`).toBe(sha256(CLIP.subarray(start, start + 10)));
      expect(members(answer).get('tiercache-edge')?.[0], `slice ${slice}`).toMatch(/^fwd=(uri-miss|partial)$/);
      expect(members(answer).get('tiercache-shield'), `slice ${slice}`).toEqual(
        expect.arrayContaining(['hit', 'detail="slices 1/1"', 'tiercache-store=cache-api']),
      );
    }
    const full = await atB(f, '/media/clip.bin');
    expect(sha256(full.body)).toBe(sha256(CLIP));
    expect(originReads(f, 'media/clip.bin')).toBe(readAtA);
  });

  it("says in the health answer, at either location, that the shield's cache is the Cache API", async () => {
    for (const base of [f.stack.url, f.stack.secondLocationUrl ?? '']) {
      const answer = await request(new URL(HEALTH_PATH, base));
      const body = JSON.parse(answer.text) as { status: string; shield: string; cache?: string };
      expect([answer.status, body.status, body.shield, body.cache], base).toEqual([200, 'ok', 'ok', 'cache-api']);
    }
  });
});

describe('the default mode across processes: a second location reaches the shield by its service binding to the shield’s address', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({}, { secondLocation: true, front: true });
    await f.origin.putObject('site/index.html', PAGE, { 'content-type': 'text/html' });
  });
  afterAll(() => f?.close());

  it("answers B's miss from the shield's cache through B's own front, the origin not asked again", async () => {
    expect(f.stack.secondLocationUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    f.tap.clear();
    expect((await f.get('/site/index.html')).status).toBe(200);
    expect(originReads(f, 'site/index.html')).toBe(1);
    await settle();
    const fromB = await atB(f, '/site/index.html');
    expect(sha256(fromB.body)).toBe(sha256(PAGE));
    expect(members(fromB).get('tiercache-edge')?.[0]).toBe('fwd=uri-miss');
    expect(members(fromB).get('tiercache-shield')).toEqual(
      expect.arrayContaining(['hit', 'tiercache-store=cache-api']),
    );
    expect(originReads(f, 'site/index.html')).toBe(1);
    // Its own cache: the second read at B is B's hit.
    await settle();
    expect(members(await atB(f, '/site/index.html')).get('tiercache-edge')?.[0]).toBe('hit');
  });

  it('answers B’s health check with the shield it reaches, its own purge list read', async () => {
    const health = await atB(f, HEALTH_PATH);
    const body = JSON.parse(health.text) as { shield: string; cache?: string; purgeList: { edge: { state: string } } };
    expect([health.status, body.shield, body.cache, body.purgeList.edge.state]).toEqual([
      200,
      'ok',
      'cache-api',
      'read',
    ]);
  });
});
