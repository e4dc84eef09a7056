import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheStatus, FakeClock, type Fixture, settle, startFixture } from './fixture.ts';

let f: Fixture;
const clock = new FakeClock();

beforeAll(async () => {
  f = await startFixture({}, { clock });
  await f.origin.putObject('index.html', '<!doctype html><h1>hello</h1>', {
    'content-type': 'text/html; charset=utf-8',
  });
  await f.origin.putObject('app.js', 'console.log(1)', { 'content-type': 'text/javascript' });
  await f.origin.putObject('shield-only.css', 'body{}', { 'content-type': 'text/css' });
  await f.origin.putObject('head-first.json', '{"a":1}', { 'content-type': 'application/json' });
  await f.origin.putObject('aged.txt', 'old', { 'content-type': 'text/plain' });
});
afterAll(() => f?.close());

describe('the tiered read path', () => {
  it('misses through both tiers, stores at both, then hits at the edge', async () => {
    f.tap.clear();
    const first = await f.get('/index.html');
    expect(first.status).toBe(200);
    expect(first.text).toBe('<!doctype html><h1>hello</h1>');
    expect(first.headers.get('cache-status')).toBe(
      'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=uri-miss; stored',
    );
    await settle();

    const second = await f.get('/index.html');
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    const members = cacheStatus(second);
    expect(members.at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    // A fresh hour (the default TTL for S3 objects), less the second or two this test took.
    const ttl = Number(/^ttl=(\d+)$/.exec(members.at(-1)?.[2] ?? '')?.[1]);
    expect(ttl).toBeGreaterThan(3590);
    expect(ttl).toBeLessThanOrEqual(3600);
    expect(f.tap.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });

  it('keeps the object representation headers of the origin', async () => {
    const answer = await f.get('/index.html');
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(answer.headers.get('last-modified')).toMatch(/GMT$/);
    expect([...answer.headers.keys()].filter((name) => name.startsWith('x-amz-'))).toEqual([]);
  });

  it('answers from the shield when the edge no longer has the object', async () => {
    await f.get('/shield-only.css');
    await settle();
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    expect(await edge.delete(new URL('/shield-only.css', f.stack.url).href)).toBe(true);
    f.tap.clear();

    const answer = await f.get('/shield-only.css');
    expect(answer.text).toBe('body{}');
    const [shield, edgeMember] = cacheStatus(answer);
    expect(shield?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(edgeMember).toEqual(['tiercache-edge', 'fwd=uri-miss', 'stored']);
    expect(f.tap.requests).toHaveLength(0);
  });

  it('reports one Server-Timing metric per tier that ran', async () => {
    const miss = await f.get('/app.js');
    expect(metricNames(miss.headers.get('server-timing'))).toEqual(['origin', 'shield', 'edge']);
    await settle();
    const hit = await f.get('/app.js');
    expect(metricNames(hit.headers.get('server-timing'))).toEqual(['edge']);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await f.get('/app.js');
    const head = await f.get('/app.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    for (const name of ['content-type', 'etag', 'last-modified'])
      expect(head.headers.get(name)).toBe(get.headers.get(name));
    expect(cacheStatus(head).at(-1)?.slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
  });

  it('answers HEAD for an object not yet stored with its exact length, and stores nothing', async () => {
    f.tap.clear();
    const head = await f.get('/head-first.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('7');
    expect(head.body.byteLength).toBe(0);
    expect(f.tap.requests.map((r) => r.method)).toEqual(['HEAD']);
    const get = await f.get('/head-first.json');
    expect(get.text).toBe('{"a":1}');
    expect(cacheStatus(get).at(-1)).toEqual(['tiercache-edge', 'fwd=uri-miss', 'stored']);
  });

  it('RFC 9110 §6.6.1: a stored 404 (S3 NoSuchKey, an error at the shield) keeps the Date of when it came, at both tiers', async () => {
    const first = await f.get('/never-put.txt');
    expect(first.status).toBe(404);
    const came = Date.parse(first.headers.get('date') ?? '');
    expect(came).not.toBeNaN();
    await settle();
    // From the shield's stored copy, 10 s on: the shield's own Date, not one the edge adds now.
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    expect(await edge.delete(new URL('/never-put.txt', f.stack.url).href)).toBe(true);
    clock.advance(10);
    const fromShield = await f.get('/never-put.txt');
    expect(fromShield.status).toBe(404);
    expect(cacheStatus(fromShield)[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
    expect(Math.abs(Date.parse(fromShield.headers.get('date') ?? '') - came)).toBeLessThanOrEqual(1000);
    expect(Number(fromShield.headers.get('age'))).toBeGreaterThanOrEqual(10);
  });

  it('counts Age across both tiers from when the origin answered', async () => {
    await f.get('/aged.txt');
    await settle();
    clock.advance(2);
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    await edge.delete(new URL('/aged.txt', f.stack.url).href);
    const fromShield = await f.get('/aged.txt');
    expect(Number(fromShield.headers.get('age'))).toBeGreaterThanOrEqual(2);
    await settle();
    clock.advance(1);
    const fromEdge = await f.get('/aged.txt');
    expect(Number(fromEdge.headers.get('age'))).toBeGreaterThanOrEqual(3);
    expect(Number(fromEdge.headers.get('age'))).toBeLessThan(10);
  });
});

function metricNames(value: string | null): string[] {
  return (value ?? '').split(',').map((metric) => metric.split(';')[0]?.trim() ?? '');
}
