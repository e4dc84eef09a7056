// The edge's memory layer (worker/memory-cache.ts, worker/memory-hit.ts): small objects the
// edge has hit once are answered from the isolate's memory, with every guarantee of the Cache
// API path — freshness, stale use, purge, Vary, ranges, conditions, invalidation. An object is
// shown to come from memory by dropping the edge's Cache API copy behind its back: the answer
// is still the edge's hit, with nothing asked of the shield or the origin.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { variantKey } from '../../shared/http/vary.ts';
import { PurgeStore, REFRESH_MS } from '../../shared/purge/purge-store.ts';
import { sliceKey } from '../../shared/slices/slice-plan.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, request, settle, startFixture } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const PURGE_TOKEN = 'memory-purge-token';
const clock = new FakeClock();
let f: Fixture;
let small: Fixture;
let off: Fixture;
/** Sliced from 1 MiB, so that a slice is no larger than the largest object memory holds (1 MiB); no whole copies. */
let sliced: Fixture;

beforeAll(async () => {
  [f, small, off, sliced] = await Promise.all([
    startFixture({ PURGE_TOKEN }, { clock }),
    startFixture({ MEMORY_OBJECT_MAX: '16' }),
    startFixture({ MEMORY_CACHE_SIZE: '0' }),
    startFixture({ SLICE_SIZE: '1MiB', WHOLE_COPY_MAX: '0' }),
  ]);
});
afterAll(async () => {
  await Promise.all([f?.close(), small?.close(), off?.close(), sliced?.close()]);
});

/** Drops the edge's Cache API copy, leaving whatever its memory holds. */
async function dropEdgeCacheCopy(fixture: { stack: Stack }, path: string): Promise<void> {
  await dropEdgeEntry(fixture, new URL(path, fixture.stack.url).href, path);
}

/**
 * Drops the edge's Cache API entry under `key` (an object's, a slice's, a variant's), leaving whatever its memory
 * holds.
 */
async function dropEdgeEntry(fixture: { stack: Stack }, key: string, label: string): Promise<void> {
  const edge = await (await fixture.stack.mf.getCaches()).open('tiercache-edge');
  expect(await edge.delete(key), `the edge's Cache API copy of ${label}`).toBe(true);
}

/** A miss, then a hit from the Cache API (which copies the object into memory). */
async function hitTwice(fixture: Fixture, path: string): Promise<Answer> {
  await fixture.get(path);
  await settle();
  const hit = await fixture.get(path);
  expect(edgeMember(hit).slice(0, 2), path).toEqual(['tiercache-edge', 'hit']);
  return hit;
}

/** `path` held in the edge's memory and nowhere else at the edge. */
async function inMemoryOnly(fixture: Fixture, path: string): Promise<Answer> {
  const fromCacheApi = await hitTwice(fixture, path);
  await dropEdgeCacheCopy(fixture, path);
  return fromCacheApi;
}

function edgeMember(answer: Answer): string[] {
  return cacheStatus(answer).at(-1) ?? [];
}

function originGets(fixture: Fixture): string[] {
  return fixture.tap.requests
    .filter((r) => r.method === 'GET' || r.method === 'HEAD')
    .map((r) => `${r.method} ${r.path}`);
}

describe('the edge memory layer', () => {
  it('answers an object it has hit once from memory, with the headers the Cache API path sends', async () => {
    await f.origin.putObject('hot.txt', 'hot body', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
    const fromCacheApi = await inMemoryOnly(f, '/hot.txt');
    f.tap.clear();
    const fromMemory = await f.get('/hot.txt');
    expect(fromMemory.status).toBe(200);
    expect(fromMemory.text).toBe('hot body');
    expect(edgeMember(fromMemory).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets(f)).toEqual([]);
    // Everything but what moves with time (Age, ttl, Server-Timing) is as the Cache API hit said it.
    const stable = (answer: Answer) =>
      [...answer.headers].filter(([name]) => !['age', 'cache-status', 'server-timing', 'date'].includes(name));
    expect(stable(fromMemory)).toEqual(stable(fromCacheApi));
    expect(fromMemory.headers.get('cache-status')?.replace(/ttl=\d+/, 'ttl=N')).toBe(
      fromCacheApi.headers.get('cache-status')?.replace(/ttl=\d+/, 'ttl=N'),
    );
    expect(fromMemory.headers.get('server-timing')).toMatch(/^edge;dur=[\d.]+$/);
    expect(fromMemory.headers.get('accept-ranges')).toBe('bytes');
  });

  it('counts Age up and ttl down on every answer from memory as time passes', async () => {
    await f.origin.putObject('ageing.txt', 'ageing', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
    await inMemoryOnly(f, '/ageing.txt');
    const ttlOf = (answer: Answer) =>
      Number(
        edgeMember(answer)
          .find((p) => p.startsWith('ttl='))
          ?.slice(4),
      );
    const before = await f.get('/ageing.txt');
    const again = await f.get('/ageing.txt');
    clock.advance(3);
    const later = await f.get('/ageing.txt');
    expect(Number(again.headers.get('age'))).toBe(Number(before.headers.get('age')));
    expect(Number(later.headers.get('age'))).toBe(Number(before.headers.get('age')) + 3);
    expect(ttlOf(later)).toBe(ttlOf(before) - 3);
    expect(edgeMember(later).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });

  it('answers ranges, multipart ranges, conditions and HEAD from memory', async () => {
    await f.origin.putObject('ranged.txt', '0123456789', {
      'content-type': 'text/plain',
      'cache-control': 'max-age=600',
    });
    const first = await inMemoryOnly(f, '/ranged.txt');
    const etag = first.headers.get('etag') ?? '';
    f.tap.clear();

    const part = await f.get('/ranged.txt', { headers: { range: 'bytes=2-4' } });
    expect(part.status).toBe(206);
    expect(part.text).toBe('234');
    expect(part.headers.get('content-range')).toBe('bytes 2-4/10');

    const parts = await f.get('/ranged.txt', { headers: { range: 'bytes=0-0,8-9' } });
    expect(parts.status).toBe(206);
    expect(parts.headers.get('content-type')).toMatch(/^multipart\/byteranges; boundary=/);
    expect(parts.text).toContain('Content-Range: bytes 8-9/10');

    expect((await f.get('/ranged.txt', { headers: { range: 'bytes=20-' } })).status).toBe(416);
    expect((await f.get('/ranged.txt', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await f.get('/ranged.txt', { headers: { 'if-match': '"other"' } })).status).toBe(412);
    const head = await f.get('/ranged.txt', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('10');
    expect(edgeMember(head).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets(f)).toEqual([]);
  });

  it('stops answering from memory once the copy is stale: stale-while-revalidate, then the new version', async () => {
    await f.origin.putObject('short.txt', 'v1', { 'content-type': 'text/plain', 'cache-control': 'max-age=10' });
    await inMemoryOnly(f, '/short.txt');
    await f.origin.putObject('short.txt', 'v2', { 'content-type': 'text/plain', 'cache-control': 'max-age=10' });
    clock.advance(11);
    f.tap.clear();
    // RFC 5861 §3 (STALE_WHILE_REVALIDATE, 60 s by default): the stale copy once, refreshed behind it.
    const afterExpiry = await f.get('/short.txt');
    expect(afterExpiry.text).toBe('v1');
    expect(edgeMember(afterExpiry)).toContain('detail=stale-while-revalidate');
    await settle();
    expect(originGets(f)).toEqual([`GET /${f.origin.bucket}/short.txt`]);
    const refreshed = await f.get('/short.txt');
    expect(refreshed.text).toBe('v2');
    expect(edgeMember(refreshed).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });

  it('forgets a purged object at once in the isolate that took the purge', async () => {
    await f.origin.putObject('purged.txt', 'before', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
    await f.origin.putObject('kept.txt', 'kept', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
    await inMemoryOnly(f, '/purged.txt');
    await inMemoryOnly(f, '/kept.txt');
    await f.origin.putObject('purged.txt', 'after', { 'content-type': 'text/plain', 'cache-control': 'max-age=600' });
    const purge = await request(new URL('/__tiercache/purge', f.stack.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['/purged.txt'] }),
    });
    expect(purge.status).toBe(200);
    f.tap.clear();
    expect((await f.get('/purged.txt')).text).toBe('after');
    expect(originGets(f)).toHaveLength(1);
    f.tap.clear();
    expect(edgeMember(await f.get('/kept.txt')).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets(f)).toEqual([]);
  });

  it(`forgets an object purged elsewhere (the global list) within ${REFRESH_MS / 1000} s`, async () => {
    await f.origin.putObject('elsewhere.txt', 'before', {
      'content-type': 'text/plain',
      'cache-control': 'max-age=600',
    });
    await inMemoryOnly(f, '/elsewhere.txt');
    await f.origin.putObject('elsewhere.txt', 'after', {
      'content-type': 'text/plain',
      'cache-control': 'max-age=600',
    });
    // As another location's edge records it: straight into the shared KV namespace.
    const purges = await f.stack.mf.getKVNamespace('PURGES', 'edge');
    const recordedAt = Date.now();
    // Stamped by the clock entries are stamped by here (the fixture's moved one), as in production both are the real
    // one.
    await new PurgeStore().recordPurges(
      purges,
      [{ kind: 'prefix', value: '/elsewhere', at: clock.now() }],
      clock.now(),
    );
    let body = '';
    while (Date.now() - recordedAt < REFRESH_MS + 3000) {
      body = (await f.get('/elsewhere.txt')).text;
      if (body === 'after') break;
      await settle(250);
    }
    expect(body).toBe('after');
    expect(Date.now() - recordedAt).toBeLessThan(REFRESH_MS + 1000);
  });

  it('holds no object larger than MEMORY_OBJECT_MAX', async () => {
    await small.origin.putObject('tiny.txt', 'tiny', { 'content-type': 'text/plain' });
    await small.origin.putObject('larger.txt', 'more than sixteen bytes', { 'content-type': 'text/plain' });
    await inMemoryOnly(small, '/tiny.txt');
    await inMemoryOnly(small, '/larger.txt');
    expect(edgeMember(await small.get('/tiny.txt')).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    // Not in memory, and its Cache API copy gone: the shield answers.
    const larger = await small.get('/larger.txt');
    expect(cacheStatus(larger)[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(edgeMember(larger)).toContain('fwd=uri-miss');
  });

  it('holds no slice of a sliced object: once the edge Cache API lets its slices go, they come from the shield, not from memory', async () => {
    const MiB = 1024 * 1024;
    const bytes = patternBytes(8, 2.5 * MiB);
    await sliced.origin.putObject('sliced.bin', bytes, {
      'content-type': 'application/octet-stream',
      'cache-control': 'max-age=600',
    });
    await sliced.get('/sliced.bin');
    await settle();
    // Every slice read back from the edge's Cache API (which would copy each into memory).
    const fromCacheApi = await sliced.get('/sliced.bin');
    expect(edgeMember(fromCacheApi)).toEqual([
      'tiercache-edge',
      'hit',
      expect.stringMatching(/^ttl=/),
      'detail="slices 3/3"',
    ]);
    const etag = fromCacheApi.headers.get('etag') ?? '';
    const objectKey = new URL('/sliced.bin', sliced.stack.url).href;
    for (let index = 0; index < 3; index++)
      await dropEdgeEntry(sliced, sliceKey(objectKey, { etag, size: bytes.length }, MiB, index), `slice ${index}`);
    sliced.tap.clear();
    const again = await sliced.get('/sliced.bin');
    expect(sha256(again.body)).toBe(sha256(bytes));
    // The manifest is the object's own entry (held); none of its slices was: all three asked of the shield.
    expect(edgeMember(again)).toContain('detail="slices 0/3"');
    expect(originGets(sliced)).toEqual([]);
  });

  it('holds nothing with MEMORY_CACHE_SIZE=0', async () => {
    await off.origin.putObject('plain.txt', 'plain', { 'content-type': 'text/plain' });
    await inMemoryOnly(off, '/plain.txt');
    expect(edgeMember(await off.get('/plain.txt'))).toContain('fwd=uri-miss');
  });
});

describe('the edge memory layer with an HTTP origin', () => {
  let site: Site;
  let stack: Stack;
  const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);
  const held = async (path: string, init?: RequestInit): Promise<void> => {
    await get(path, init);
    await settle();
    expect(
      cacheStatus(await get(path, init))
        .at(-1)
        ?.slice(0, 2),
    ).toEqual(['tiercache-edge', 'hit']);
    await dropEdgeCacheCopy({ stack }, path);
  };

  beforeAll(async () => {
    site = await startSite();
    site.page('/negotiated.html', '<p>one</p>', { 'cache-control': 'max-age=600', vary: 'Accept-Language' });
    site.page('/star.html', '<p>star</p>', { 'cache-control': 'max-age=600', vary: '*' });
    site.page('/page2.html', '<p>two</p>', { 'cache-control': 'max-age=600' });
    stack = await startWorkers({ config: { ORIGIN_KIND: 'http', ORIGIN_URL: site.url, SHIELD_TOKEN: 't' } });
  });
  afterAll(async () => {
    await stack?.dispose();
    await site?.close();
  });

  /** The edge's key of `path`'s French variant (RFC 9111 §4.1, vary.ts). */
  const frenchKey = (path: string): string =>
    variantKey(new URL(path, stack.url).href, ['accept-language'], new Headers({ 'accept-language': 'fr' })) ?? '';

  it('holds each variant of a response that varies (RFC 9111 §4.1), never one for another', async () => {
    const french = { headers: { 'accept-language': 'fr' } };
    await get('/negotiated.html', french);
    await settle();
    expect(
      cacheStatus(await get('/negotiated.html', french))
        .at(-1)
        ?.slice(0, 2),
    ).toEqual(['tiercache-edge', 'hit']);
    // The variant's Cache API copy goes; the object's Vary index stays there (memory never holds one).
    await dropEdgeEntry({ stack }, frenchKey('/negotiated.html'), 'the fr variant');
    site.received.length = 0;
    const fr = await get('/negotiated.html', { headers: { 'accept-language': 'fr' } });
    expect(fr.text).toBe('<p>one</p>');
    expect(fr.headers.get('vary')).toBe('Accept-Language');
    expect(cacheStatus(fr).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(site.received).toEqual([]);
    const de = await get('/negotiated.html', { headers: { 'accept-language': 'de' } });
    // RFC 9211 §2.2: the object's index is held, not this variant: a vary-miss.
    expect(cacheStatus(de).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'fwd=vary-miss']);
    expect(site.received.map((r) => r.headers['accept-language'])).toEqual(['de']);
  });

  it('never holds the Vary index of a response that varies: once the edge Cache API lets it go, the object is a miss', async () => {
    site.page('/indexed.html', '<p>indexed</p>', { 'cache-control': 'max-age=600', vary: 'Accept-Language' });
    const fr = { headers: { 'accept-language': 'fr' } };
    await get('/indexed.html', fr);
    await settle();
    expect(
      cacheStatus(await get('/indexed.html', fr))
        .at(-1)
        ?.slice(0, 2),
    ).toEqual(['tiercache-edge', 'hit']);
    await dropEdgeCacheCopy({ stack }, '/indexed.html');
    site.received.length = 0;
    // No index anywhere at the edge: nothing names the variant memory may hold, so it is a miss.
    const again = await get('/indexed.html', fr);
    expect(again.text).toBe('<p>indexed</p>');
    expect(cacheStatus(again).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'fwd=uri-miss']);
  });

  it('never holds a response with Vary: *', async () => {
    await get('/star.html');
    await settle();
    site.received.length = 0;
    await get('/star.html');
    await get('/star.html');
    expect(site.received).toHaveLength(2);
  });

  it('drops what an unsafe request invalidates (RFC 9111 §4.4), Location included', async () => {
    await held('/page2.html');
    site.page('/page2.html', '<p>two, edited</p>', { 'cache-control': 'max-age=600' });
    const created = await get('/comments', { method: 'POST', body: 'hello' });
    expect(created.status).toBe(201);
    await settle();
    site.received.length = 0;
    expect((await get('/page2.html')).text).toBe('<p>two, edited</p>');
    expect(site.received.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /page2.html']);
  });
});
