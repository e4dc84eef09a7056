// Empty objects (0 bytes: an empty index.html, a `.keep`) are ordinary objects (docs/caching.md#empty-objects):
// GET answers 200 with Content-Length 0, HEAD the same headers, a byte range 416 with `Content-Range: bytes */0`
// (RFC 9110 §14.1.2, §15.5.17), stored and hit at both tiers and in the edge's memory, with conditions. Against
// s3rver, which answers a Range on an empty object with a malformed 206 (`Content-Range: bytes 0-0/0`,
// `Content-Length: 1`, no body), and against an S3 origin answering as Storj's gateway and S3 do (416
// `bytes */0`, with or without validators).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, type Received, type Scripted, startAnyOrigin } from './any-origin.ts';
import { type Answer, cacheStatus, type Fixture, request, SHIELD_TOKEN, settle, startFixture } from './fixture.ts';

let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ INDEX_DOCUMENT: 'index.html' });
  await f.origin.putObject('empty.txt', '', { 'content-type': 'text/plain' });
  await f.origin.putObject('.keep', '');
  await f.origin.putObject('docs/index.html', '');
  await f.origin.putObject('ranged-empty.txt', '', { 'content-type': 'text/plain' });
  await f.origin.putObject('conditional-empty.txt', '', { 'content-type': 'text/plain' });
  await f.origin.putObject('shield-empty.txt', '', { 'content-type': 'text/plain' });
  await f.origin.putObject('memory-empty.txt', '', { 'content-type': 'text/plain' });
});
afterAll(() => f?.close());

/** Uncompressed, so that the answer's own Content-Length shows (workerd gzips text types for clients that accept it). */
const IDENTITY = { 'accept-encoding': 'identity' };
const edgeMember = (answer: Answer): string[] => cacheStatus(answer).at(-1) ?? [];
const originRequests = (): string[] => f.tap.requests.map((r) => `${r.method} ${r.path} ${r.headers.range ?? ''}`);
const shieldGet = (path: string, headers: Record<string, string> = {}): Promise<Answer> =>
  request(new URL(path, f.stack.shieldUrl), { headers: { 'x-tiercache-credential': SHIELD_TOKEN, ...headers } });

/** The headers an empty object is served with, whatever answered. */
function expectEmptyObject(answer: Answer, type: string | null = 'text/plain'): void {
  expect(answer.status).toBe(200);
  expect(answer.body.byteLength).toBe(0);
  expect(answer.headers.get('content-length')).toBe('0');
  // The MD5 of no bytes: S3's ETag of an empty object.
  expect(answer.headers.get('etag')).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
  expect(answer.headers.get('last-modified')).toMatch(/GMT$/);
  if (type !== null) expect(answer.headers.get('content-type')).toBe(type);
}

describe('an empty object in an S3 bucket (s3rver)', () => {
  it('answers GET with 200 and Content-Length 0, then hits it at the edge', async () => {
    f.tap.clear();
    const miss = await f.get('/empty.txt', { headers: IDENTITY });
    expectEmptyObject(miss);
    expect(cacheStatus(miss).map((m) => m.slice(0, 2))).toEqual([
      ['tiercache-shield', 'fwd=uri-miss'],
      ['tiercache-edge', 'fwd=uri-miss'],
    ]);
    // The first slice, which s3rver answers with a 206 no slice can be read from; then the object, whole.
    expect(originRequests()).toEqual(['GET /assets/empty.txt bytes=0-8388607', 'GET /assets/empty.txt ']);
    await settle();
    const hit = await f.get('/empty.txt', { headers: IDENTITY });
    expectEmptyObject(hit);
    expect(edgeMember(hit).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originRequests()).toHaveLength(2);
  });

  it('answers HEAD with the headers GET answers, cold and stored', async () => {
    const cold = await f.get('/.keep', { method: 'HEAD', headers: IDENTITY });
    expectEmptyObject(cold, null);
    await f.get('/.keep', { headers: IDENTITY });
    await settle();
    const stored = await f.get('/.keep', { method: 'HEAD', headers: IDENTITY });
    expectEmptyObject(stored, null);
    expect(stored.headers.get('content-type')).toBe(cold.headers.get('content-type'));
    expect(edgeMember(stored).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });

  it('RFC 9110 §14.1.2, §15.5.17: answers a byte range with 416 and Content-Range bytes */0, cold and stored', async () => {
    for (const range of ['bytes=0-', 'bytes=0-0', 'bytes=5-9']) {
      const answer = await f.get('/ranged-empty.txt', { headers: { range } });
      expect(answer.status, range).toBe(416);
      expect(answer.headers.get('content-range'), range).toBe('bytes */0');
    }
    await settle();
    const stored = await f.get('/ranged-empty.txt', { headers: { range: 'bytes=0-' } });
    expect(stored.status).toBe(416);
    expect(stored.headers.get('content-range')).toBe('bytes */0');
    expect(edgeMember(stored).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    // §14.1.2: a suffix range is the one satisfiable form; no Content-Range can say it selects nothing, so the whole
    // (empty) representation answers, as §14.2 lets a server ignore Range.
    const suffix = await f.get('/ranged-empty.txt', { headers: { range: 'bytes=-5', ...IDENTITY } });
    expectEmptyObject(suffix);
  });

  it('RFC 9110 §13.1.2: answers If-None-Match with its ETag 304, cold and stored', async () => {
    const etag = '"d41d8cd98f00b204e9800998ecf8427e"';
    const cold = await f.get('/conditional-empty.txt', { headers: { 'if-none-match': etag } });
    expect(cold.status).toBe(304);
    expect(cold.headers.get('etag')).toBe(etag);
    await settle();
    const notModified = await f.get('/conditional-empty.txt', { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    const changed = await f.get('/conditional-empty.txt', { headers: { 'if-none-match': '"other"', ...IDENTITY } });
    expectEmptyObject(changed);
  });

  it('is stored at the shield too: an edge without it is answered by the shield, not the origin', async () => {
    await f.get('/shield-empty.txt');
    await settle();
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    expect(await edge.delete(new URL('/shield-empty.txt', f.stack.url).href)).toBe(true);
    f.tap.clear();
    const answer = await f.get('/shield-empty.txt', { headers: IDENTITY });
    expectEmptyObject(answer);
    expect(cacheStatus(answer)[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(originRequests()).toEqual([]);
    // The shield's own answer to the edge's first ask (slice 0, undiscovered): the whole empty object.
    const direct = await shieldGet('/shield-empty.txt', IDENTITY);
    expectEmptyObject(direct);
  });

  it("is held in the edge's memory once hit, and answered from there", async () => {
    await f.get('/memory-empty.txt');
    await settle();
    await f.get('/memory-empty.txt');
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    expect(await edge.delete(new URL('/memory-empty.txt', f.stack.url).href)).toBe(true);
    f.tap.clear();
    const fromMemory = await f.get('/memory-empty.txt', { headers: IDENTITY });
    expectEmptyObject(fromMemory);
    expect(edgeMember(fromMemory).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    const range = await f.get('/memory-empty.txt', { headers: { range: 'bytes=0-' } });
    expect(range.status).toBe(416);
    expect(range.headers.get('content-range')).toBe('bytes */0');
    expect(originRequests()).toEqual([]);
  });

  it('serves an empty index document (INDEX_DOCUMENT) for its folder', async () => {
    const folder = await f.get('/docs/', { headers: IDENTITY });
    expectEmptyObject(folder, 'text/html; charset=utf-8');
    await settle();
    const again = await f.get('/docs/', { headers: IDENTITY });
    expectEmptyObject(again, 'text/html; charset=utf-8');
    expect(edgeMember(again).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });
});

/** The headers an S3 origin sends with an empty object it serves. */
const OBJECT_HEADERS = {
  etag: '"d41d8cd98f00b204e9800998ecf8427e"',
  'last-modified': 'Mon, 07 Dec 2026 10:00:00 GMT',
  'content-type': 'text/plain',
  'accept-ranges': 'bytes',
};
/** S3's error document for an unsatisfiable range (the key's size in ActualObjectSize). */
const INVALID_RANGE =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidRange</Code><Message>The requested range is not satisfiable</Message><RangeRequested>bytes=0-8388607</RangeRequested><ActualObjectSize>0</ActualObjectSize></Error>';

/**
 * An empty object as Storj's gateway (and S3) serves it: GET and HEAD 200 with Content-Length 0, a Range 416 with
 * `Content-Range: bytes *\/0` and an XML body, carrying the object's validators or none.
 */
function storjEmpty(validatorsOn416: boolean): (request: Received) => Scripted {
  return (r) => {
    if (r.headers.range === undefined)
      return { status: 200, headers: { ...OBJECT_HEADERS, 'content-length': '0' }, body: '' };
    const validators = validatorsOn416 ? OBJECT_HEADERS : { 'accept-ranges': 'bytes' };
    return {
      status: 416,
      headers: { ...validators, 'content-type': 'application/xml', 'content-range': 'bytes */0' },
      body: INVALID_RANGE,
    };
  };
}

describe('an empty object behind an S3 origin answering a Range with 416 bytes */0, as Storj and S3 do', () => {
  let origin: AnyOrigin;
  let stack: Stack;
  const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);

  beforeAll(async () => {
    origin = await startAnyOrigin();
    origin.answer('/bucket/with-validators.txt', storjEmpty(true));
    origin.answer('/bucket/without-validators.txt', storjEmpty(false));
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 's3',
        ORIGIN_URL: origin.url,
        S3_BUCKET: 'bucket',
        S3_ACCESS_KEY_ID: 'key',
        S3_SECRET_ACCESS_KEY: 'secret',
        SHIELD_TOKEN,
      },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await origin?.close();
  });

  for (const key of ['with-validators.txt', 'without-validators.txt']) {
    it(`serves ${key} as the object: 200, Content-Length 0, its ETag, type and date; a range 416`, async () => {
      const miss = await get(`/${key}`, { headers: IDENTITY });
      expect(miss.status).toBe(200);
      expect(miss.body.byteLength).toBe(0);
      expect(miss.headers.get('content-length')).toBe('0');
      expect(miss.headers.get('etag')).toBe(OBJECT_HEADERS.etag);
      expect(miss.headers.get('content-type')).toBe('text/plain');
      expect(miss.headers.get('last-modified')).toBe(OBJECT_HEADERS['last-modified']);
      // The 416 says the size: too small to slice, so the object is asked for whole at once, no HEAD between; the
      // 416's XML never reaches a client.
      expect(origin.receivedFor(`/bucket/${key}`).map((r) => `${r.method} ${r.headers.range ?? ''}`)).toEqual([
        'GET bytes=0-8388607',
        'GET ',
      ]);
      await settle();
      const asked = origin.received.length;
      const hit = await get(`/${key}`, { headers: IDENTITY });
      expect(hit.headers.get('content-length')).toBe('0');
      expect(edgeMember(hit).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
      const range = await get(`/${key}`, { headers: { range: 'bytes=0-' } });
      expect(range.status).toBe(416);
      expect(range.headers.get('content-range')).toBe('bytes */0');
      expect(origin.received).toHaveLength(asked);
    });
  }
});
