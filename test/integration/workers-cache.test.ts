// Workers Cache in front of the shield's slices entrypoint (docs/deploying.md "What each cache
// holds"), driven through the real workers: the shield's gateway hands Workers Cache the slice
// requests that depend only on the object's version and span, keyed by the origin and bucket;
// what comes back is what the edge would have got from the shield itself (the object's
// Cache-Tag, an Age that counts the time held, none of Cloudflare's or our fields); a hit there
// is the shield's hit; and a purge reaches it, or the edge says it did not. Workers Cache has no
// local emulation, so the platform's part is a fake (fake-workers-cache.js) behaving as its
// documentation says; with the real entrypoints (ctx.exports in workerd, no Workers Cache) the
// bytes are the same, and a purge that cannot reach a Workers Cache is not reported done.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawConfig } from '../../shared/config/config.ts';
import { sliceRequestPath } from '../../shared/hop/slice-protocol.ts';
import { urlTag } from '../../shared/purge/workers-cache-purge.ts';
import { drain, patternBytes, sha256 } from './bytes.ts';
import { cacheStatus, type Fixture, request, SHIELD_TOKEN, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const CLIP = patternBytes(11, 3.5 * MiB);
const PURGE_TOKEN = 'test-purge-token';
const FAKE_ENTRY = 'test/integration/fake-workers-cache.js';
/** The shield's own setting (shield/env.ts), written by `npm run deploy`; not one of the settings both workers read. */
const workersCache = (value: string): RawConfig => ({ SHIELD_WORKERS_CACHE: value }) as RawConfig;

interface FakeLog {
  lookups: string[];
  stored: { key: string; tags: string[]; field: string }[];
  purges: { tags?: string[]; purgeEverything?: boolean }[];
  invalidations: { tags?: string[]; purgeEverything?: boolean }[];
  held: string[];
  /** Each run of the shield's app: `<gateway|slices> <METHOD> <path>`. */
  appRuns: string[];
}

const purge = (f: Fixture, body: unknown) =>
  request(new URL('/__tiercache/purge', f.stack.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('Workers Cache in front of the shield (a fake of the platform, the real shield)', () => {
  let f: Fixture;
  const fakeLog = async (): Promise<FakeLog> =>
    JSON.parse((await request(new URL('/__test/workers-cache', f.stack.shieldUrl))).text) as FakeLog;
  /** A slice request as the edge sends it, to the shield's own socket. */
  const askShield = (path: string, headers: Record<string, string> = {}) =>
    request(new URL(path, f.stack.shieldUrl), {
      headers: { 'x-tiercache-credential': SHIELD_TOKEN, 'x-tiercache-host': new URL(f.stack.url).host, ...headers },
    });

  beforeAll(async () => {
    f = await startFixture(
      { SLICE_SIZE: '1MiB', PURGE_TOKEN, ...workersCache('on') },
      { entries: { shield: FAKE_ENTRY } },
    );
    await f.origin.putObject('media/clip.bin', CLIP, {
      'content-type': 'video/mp4',
      'cache-control': 'max-age=600',
      'x-amz-meta-cache-tag': 'Album-7',
    });
    await f.origin.putObject('small.txt', 'small', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
  });
  afterAll(() => f?.close());

  it('keeps each pinned span and each discovery answer under a key naming the origin and the bucket, tagged for every purge that could name it', async () => {
    const answer = await f.get('/media/clip.bin');
    expect(answer.status).toBe(200);
    expect(sha256(answer.body)).toBe(sha256(CLIP));
    await f.get('/small.txt');
    await settle();
    const { stored } = await fakeLog();
    const keys = stored.map((entry) => entry.key);
    const bucket = `${f.tap.url}/${f.origin.bucket}`;
    for (const index of [1, 2, 3])
      expect(
        keys.some(
          (key) =>
            key.startsWith(`/__tiercache/slices/${index}-${index}/${MiB}/`) &&
            key.endsWith(`/${bucket}/media/clip.bin`),
        ),
        `slice ${index}`,
      ).toBe(true);
    expect(
      keys.some((key) => key.startsWith(`/__tiercache/slices/0-0/${MiB}/-/`) && key.endsWith(`/${bucket}/small.txt`)),
    ).toBe(true);
    const clip = stored.find((entry) => entry.key.startsWith('/__tiercache/slices/1-1/'));
    expect(clip?.tags).toEqual(expect.arrayContaining(['album-7', urlTag('/media/clip.bin')]));
    // For no longer than the shield itself holds it fresh, and never stale on an error.
    expect(clip?.field).toMatch(/^max-age=(?:59\d|600), stale-if-error=0$/);
  });

  it("answers a span it keeps as the shield's hit, with the object's Cache-Tag, an Age that counts the time held, and none of Cloudflare's fields or ours", async () => {
    await f.get('/media/clip.bin');
    await settle();
    const etag = (await f.get('/media/clip.bin', { method: 'HEAD' })).headers.get('etag') ?? '';
    f.tap.clear();
    const answer = await askShield(
      sliceRequestPath({ span: { first: 2, last: 2 }, sliceSize: MiB, etag }, '/media/clip.bin'),
    );
    expect(answer.status).toBe(200);
    expect(sha256(answer.body)).toBe(sha256(CLIP.subarray(2 * MiB, 3 * MiB)));
    expect(cacheStatus(answer).at(-1)).toEqual([
      'tiercache-shield',
      'hit',
      'detail=workers-cache',
      'tiercache-store=workers-cache',
    ]);
    expect(answer.headers.get('cache-tag')).toBe('Album-7');
    expect(Number(answer.headers.get('age'))).toBeGreaterThanOrEqual(0);
    for (const name of [
      'cloudflare-cdn-cache-control',
      'cf-cache-status',
      'x-tiercache-cache-tag',
      'x-tiercache-age',
      'x-tiercache-aged-at',
    ])
      expect(answer.headers.has(name), name).toBe(false);
    expect(f.tap.requests).toEqual([]);
  });

  it("runs the shield's app once for a span it keeps: on a miss in the slices entrypoint alone, on a hit not at all", async () => {
    await f.origin.putObject('once/clip.bin', CLIP, { 'content-type': 'video/mp4', 'cache-control': 'max-age=600' });
    const path = sliceRequestPath({ span: { first: 0, last: 0 }, sliceSize: MiB, etag: undefined }, '/once/clip.bin');
    const asked = ` GET ${new URL(path, f.stack.shieldUrl).pathname}`;
    const runs = async (): Promise<string[]> => (await fakeLog()).appRuns.filter((run) => run.endsWith(asked));

    const miss = await askShield(path);
    expect(miss.status).toBe(200);
    expect(await runs()).toEqual([`slices${asked}`]);
    await settle();
    const hit = await askShield(path);
    expect(sha256(hit.body)).toBe(sha256(miss.body));
    expect(cacheStatus(hit).at(-1)).toContain('detail=workers-cache');
    expect(await runs()).toEqual([`slices${asked}`]);
    // What Workers Cache may not answer, the default entrypoint's app answers, once.
    await askShield(path, { 'x-tiercache-revalidate': '1' });
    expect(await runs()).toEqual([`slices${asked}`, `gateway${asked}`]);
  });

  it("never hands Workers Cache what the shield refuses: a request without the edge's credential, or for a host that reads no bucket", async () => {
    const path = sliceRequestPath({ span: { first: 0, last: 0 }, sliceSize: MiB, etag: undefined }, '/media/clip.bin');
    const before = (await fakeLog()).lookups.length;
    const stranger = await request(new URL(path, f.stack.shieldUrl), {
      headers: { 'x-tiercache-host': new URL(f.stack.url).host },
    });
    expect(stranger.status).toBe(403);
    expect((await fakeLog()).lookups.length).toBe(before);

    const only = await startFixture(
      { SLICE_SIZE: '1MiB', S3_BUCKET: '', HOST_BUCKETS: 'only.test=assets', ...workersCache('on') },
      { entries: { shield: FAKE_ENTRY } },
    );
    try {
      const misdirected = await request(new URL(path, only.stack.shieldUrl), {
        headers: { 'x-tiercache-credential': SHIELD_TOKEN, 'x-tiercache-host': 'unknown.test' },
      });
      expect(misdirected.status).toBe(421);
      const log = JSON.parse((await request(new URL('/__test/workers-cache', only.stack.shieldUrl))).text) as FakeLog;
      expect(log.lookups).toEqual([]);
    } finally {
      await only.close();
    }
  });

  it("never hands Workers Cache a revalidation, a request carrying the edge's purge watermark, a warm, or a HEAD", async () => {
    const etag = (await f.get('/media/clip.bin', { method: 'HEAD' })).headers.get('etag') ?? '';
    const path = sliceRequestPath({ span: { first: 1, last: 1 }, sliceSize: MiB, etag }, '/media/clip.bin');
    const before = (await fakeLog()).lookups.length;
    const edgeHeaders: Record<string, string>[] = [
      { 'x-tiercache-revalidate': '1', 'if-none-match': etag },
      { 'x-tiercache-purged-at': String(Date.now() - 60_000) },
    ];
    for (const headers of edgeHeaders) {
      const answer = await askShield(path, headers);
      expect(answer.status).toBeLessThan(400);
      expect(answer.headers.get('cache-status')).not.toMatch(/workers-cache/);
    }
    await drain(
      (
        await fetch(
          new URL(
            sliceRequestPath({ span: { first: 3, last: 3 }, sliceSize: MiB, etag, warm: true }, '/media/clip.bin'),
            f.stack.shieldUrl,
          ),
          { headers: { 'x-tiercache-credential': SHIELD_TOKEN } },
        )
      ).body,
    );
    await request(new URL('/media/clip.bin', f.stack.shieldUrl), {
      method: 'HEAD',
      headers: { 'x-tiercache-credential': SHIELD_TOKEN },
    });
    expect((await fakeLog()).lookups.length).toBe(before);
  });

  it('purges Workers Cache by the tags a purge names, so that the next read comes from the origin again', async () => {
    await f.get('/media/clip.bin');
    await f.get('/small.txt');
    await settle();
    const kept = (key: string): boolean => key.endsWith('/media/clip.bin') || key.endsWith('/small.txt');
    expect((await fakeLog()).held.filter(kept).length).toBeGreaterThanOrEqual(5);
    const answer = await purge(f, { tags: ['album-7'], urls: ['/small.txt'], prefixes: ['/media/'] });
    expect(answer.status, answer.text).toBe(200);
    const log = await fakeLog();
    expect(log.purges.at(-1)?.tags).toEqual(expect.arrayContaining(['album-7', urlTag('/small.txt')]));
    expect(log.held.filter(kept)).toEqual([]);
    f.tap.clear();
    const again = await f.get('/media/clip.bin');
    expect(sha256(again.body)).toBe(sha256(CLIP));
    expect(f.tap.requests.filter((r) => r.method === 'GET').length).toBeGreaterThan(0);
  });

  it('soft-purges Workers Cache with invalidate() by the same tags: its copies kept, the origin asked only to confirm', async () => {
    // An object no purge has named yet: the edge sends a purge's watermark for one, which Workers Cache never sees.
    await f.origin.putObject('soft/clip.bin', CLIP, { 'content-type': 'video/mp4', 'cache-control': 'max-age=600' });
    await f.get('/soft/clip.bin');
    await settle();
    const kept = (key: string): boolean => key.endsWith('/soft/clip.bin');
    const held = (await fakeLog()).held.filter(kept);
    expect(held.length).toBeGreaterThan(0);
    const answer = await purge(f, { urls: ['/soft/clip.bin'], soft: true });
    expect(answer.status, answer.text).toBe(200);
    const log = await fakeLog();
    expect(log.invalidations.at(-1)).toEqual({ tags: [urlTag('/soft/clip.bin')] });
    expect(log.purges.at(-1)?.tags).not.toContain(urlTag('/soft/clip.bin'));
    expect(log.held.filter(kept)).toEqual(held);
    f.tap.clear();
    const again = await f.get('/soft/clip.bin');
    expect(sha256(again.body)).toBe(sha256(CLIP));
    // What the tiers still finish after answering (reading ahead) is asked of the origin too: let it end.
    await settle();
    const gets = f.tap.requests.filter((r) => r.method === 'GET');
    expect(gets.length).toBeGreaterThan(0);
    expect(gets.map((r) => r.status)).toEqual(gets.map(() => 304));
  });

  it('answers a purge that Workers Cache did not take with a 503 and Retry-After, the purge recorded', async () => {
    await request(new URL('/__test/workers-cache/fail-purges', f.stack.shieldUrl));
    const answer = await purge(f, { urls: ['/small.txt'] });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('60');
    expect(answer.text).toMatch(/Workers Cache in front of the shield did not take the purge/);
    expect(answer.text).toMatch(/the purge is recorded/);
  });
});

describe('the shield gateway with its real slices entrypoint (ctx.exports in workerd, no Workers Cache locally)', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ SLICE_SIZE: '1MiB', PURGE_TOKEN, ...workersCache('on') });
    await f.origin.putObject('media/clip.bin', CLIP, {
      'content-type': 'video/mp4',
      'x-amz-meta-cache-tag': 'Album-7',
    });
  });
  afterAll(() => f?.close());

  it('serves the exact bytes and headers with the gateway calling its slices entrypoint, cold and from the edge', async () => {
    for (const _ of [1, 2]) {
      const answer = await f.get('/media/clip.bin');
      expect(answer.status).toBe(200);
      expect(sha256(answer.body)).toBe(sha256(CLIP));
      expect(answer.headers.get('cache-tag')).toBe('Album-7');
      expect(
        [...answer.headers.keys()].filter(
          (name) => name.startsWith('x-tiercache-') || name.startsWith('cloudflare-') || name === 'cf-cache-status',
        ),
      ).toEqual([]);
      await settle();
    }
  });

  it('does not report a purge done when the slices entrypoint has no Workers Cache purge API to call', async () => {
    const answer = await purge(f, { urls: ['/media/clip.bin'] });
    expect(answer.status).toBe(503);
    expect(answer.text).toMatch(/no Workers Cache purge API/);
  });

  it('refuses a misspelled SHIELD_WORKERS_CACHE, naming it', async () => {
    const g = await startFixture(workersCache('yes'));
    try {
      await g.origin.putObject('a.txt', 'a', { 'content-type': 'text/plain' });
      const answer = await g.get('/a.txt');
      expect(answer.status).toBeGreaterThanOrEqual(500);
      expect(answer.text).toMatch(/SHIELD_WORKERS_CACHE: expected on or off, got "yes"/);
    } finally {
      await g.close();
    }
  });
});
