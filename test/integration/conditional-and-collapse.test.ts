import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patternBytes } from './bytes.ts';
import { cacheStatus, FakeClock, type Fixture, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
let f: Fixture;
const clock = new FakeClock();

beforeAll(async () => {
  f = await startFixture({ SLICE_SIZE: '1MiB', NEGATIVE_TTL: '60' }, { clock });
  await f.origin.putObject('page.html', '<p>page</p>', { 'content-type': 'text/html' });
  await f.origin.putObject('movie.bin', patternBytes(41, 3 * MiB));
});
afterAll(() => f?.close());

describe('conditional requests answered at the edge (RFC 9110 §13)', () => {
  it('answers a matching If-None-Match with 304 and only the validator and caching headers', async () => {
    const first = await f.get('/page.html');
    const etag = first.headers.get('etag')!;
    await settle();
    f.tap.clear();
    const answer = await f.get('/page.html', { headers: { 'if-none-match': etag } });
    expect(answer.status).toBe(304);
    expect(answer.body.byteLength).toBe(0);
    expect(answer.headers.get('etag')).toBe(etag);
    expect(answer.headers.get('content-type')).toBeNull();
    expect(cacheStatus(answer).at(-1)?.[1]).toBe('hit');
    expect(f.tap.requests).toEqual([]);
  });

  it('compares If-None-Match weakly, and answers 200 when nothing matches', async () => {
    const etag = (await f.get('/page.html')).headers.get('etag')!;
    expect((await f.get('/page.html', { headers: { 'if-none-match': `"other", W/${etag}` } })).status).toBe(304);
    expect((await f.get('/page.html', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('answers If-Modified-Since at or after Last-Modified with 304, and earlier with 200', async () => {
    const lastModified = (await f.get('/page.html')).headers.get('last-modified')!;
    expect((await f.get('/page.html', { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    expect((await f.get('/page.html', { headers: { 'if-modified-since': earlier } })).status).toBe(200);
  });

  it('answers a failed If-Match with 412', async () => {
    const answer = await f.get('/page.html', { headers: { 'if-match': '"not-this-one"' } });
    expect(answer.status).toBe(412);
  });

  it('answers If-None-Match on a sliced object with 304, reading no slice', async () => {
    const etag = (await f.get('/movie.bin', { headers: { range: 'bytes=0-0' } })).headers.get('etag')!;
    await settle();
    f.tap.clear();
    const answer = await f.get('/movie.bin', { headers: { 'if-none-match': etag } });
    expect(answer.status).toBe(304);
    expect(f.tap.requests).toEqual([]);
    const head = await f.get('/movie.bin', { method: 'HEAD', headers: { 'if-none-match': etag } });
    expect(head.status).toBe(304);
  });
});

describe('negative caching', () => {
  it('keeps a 404 for NEGATIVE_TTL seconds, then asks the origin again', async () => {
    f.tap.clear();
    expect((await f.get('/not/here.txt')).status).toBe(404);
    await settle();
    const again = await f.get('/not/here.txt');
    expect(again.status).toBe(404);
    expect(cacheStatus(again).at(-1)?.[1]).toBe('hit');
    expect(f.tap.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    clock.advance(61);
    await f.origin.putObject('not/here.txt', 'now it is');
    const later = await f.get('/not/here.txt');
    expect(later.status).toBe(200);
    expect(later.text).toBe('now it is');
  });
});

describe('request collapsing', () => {
  it('sends 50 concurrent misses for one object to the origin once', async () => {
    await f.origin.putObject('hot.js', 'export const hot = true;', { 'content-type': 'text/javascript' });
    f.tap.clear();
    const answers = await Promise.all(Array.from({ length: 50 }, () => f.get('/hot.js')));
    expect(answers.every((a) => a.status === 200 && a.text === 'export const hot = true;')).toBe(true);
    expect(f.tap.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    expect(answers.filter((a) => cacheStatus(a).at(-1)?.includes('collapsed')).length).toBeGreaterThan(0);
  });

  it('sends 50 concurrent misses for one slice of a sliced object to the origin once', async () => {
    await f.origin.putObject('hot-video.bin', patternBytes(43, 4 * MiB));
    f.tap.clear();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        f.get('/hot-video.bin', { headers: { range: `bytes=${2 * MiB}-${2 * MiB + 99}` } }),
      ),
    );
    expect(answers.every((a) => a.status === 206 && a.body.byteLength === 100)).toBe(true);
    expect(f.tap.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });
});
