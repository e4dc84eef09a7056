// headObject (shared/tier/object-head.ts) over fake ports: HEAD answered from what the tier
// holds, or asked upstream as a HEAD and never stored.

import { describe, expect, it } from 'vitest';
import { Disconnected, NotStored } from '../../../shared/http/errors.ts';
import { headObject } from '../../../shared/tier/object-head.ts';
import { resolveObject } from '../../../shared/tier/object-read.ts';
import { cacheName } from '../../../shared/tier/tier-headers.ts';
import { drained, type FakeRead, fakeRead, patterned, sameTier, textObject, wholeAnswer } from './fakes.ts';

/** A read whose object is stored (by a GET), then `seconds` later another request at the tier. */
/** A read at the edge: its next tier is the shield, whose member names a disconnection behind it (ports.ts nextMember). */
const AT_THE_EDGE = { nextMember: cacheName('shield') };

async function storedThen(
  seconds: number,
  overrides: Parameters<typeof fakeRead>[0] = {},
  later: Parameters<typeof fakeRead>[0] = {},
): Promise<FakeRead> {
  const read = fakeRead(overrides);
  await drained(read, await resolveObject(read, 0));
  read.clock.advance(seconds);
  return sameTier(read, later);
}

describe('headObject: from what the tier holds', () => {
  it('a fresh whole entry: the headers its GET would carry, no body, and no upstream call', async () => {
    const read = await storedThen(100.7);
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(read.upstream.calls.filter((call) => call.method === 'head')).toEqual([]);
    expect(read.upstream.calls).toHaveLength(1);
    expect(Object.fromEntries(head.headers)).toMatchObject({
      etag: '"v1"',
      'content-type': 'text/plain',
      'content-length': '12',
      'accept-ranges': 'bytes',
      // RFC 9111 §5.1: Age in whole seconds.
      age: '100',
      'cache-status': 'tiercache-edge; hit; ttl=3499',
      'server-timing': 'edge;dur=0',
    });
  });

  it("a sliced object's manifest: the full length it knows, none of the tier's own fields", async () => {
    const read = await storedThen(0, {
      object: {
        body: patterned(10_000),
        sliceSize: 4096,
        headers: { etag: '"s1"', 'content-type': 'video/mp4', 'cache-control': 'max-age=60' },
      },
    });
    const head = await headObject(read, 'shield', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('10000');
    expect(head.headers.get('content-type')).toBe('video/mp4');
    expect(head.headers.get('cache-status')).toBe('tiercache-shield; hit; ttl=60');
    expect([...head.headers.keys()].filter((name) => name.startsWith('x-tiercache-'))).toEqual([]);
    expect(read.upstream.calls).toHaveLength(1);
  });

  it('a stored 404 answers HEAD as a 404, without Accept-Ranges', async () => {
    const read = await storedThen(10, { object: { body: new TextEncoder().encode('gone'), status: 404, headers: {} } });
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(404);
    expect(head.headers.has('accept-ranges')).toBe(false);
    expect(head.headers.get('cache-status')).toBe('tiercache-edge; hit; ttl=50');
  });

  it('RFC 5861 §3: stale within stale-while-revalidate, answers from the entry and says so', async () => {
    const read = await storedThen(70, {
      object: textObject('x', { 'cache-control': 'max-age=60, stale-while-revalidate=30' }),
    });
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-status')).toBe('tiercache-edge; hit; ttl=-10; detail=stale-while-revalidate');
    expect(head.headers.get('age')).toBe('70');
    expect(read.upstream.calls).toHaveLength(1);
  });

  it('RFC 9213: the edge strips Tiercache-Cache-Control (for tiercache alone); the shield keeps it for the edge', async () => {
    const object = textObject('x', { 'tiercache-cache-control': 'max-age=600', 'cdn-cache-control': 'max-age=300' });
    const edge = await storedThen(0, { object });
    const atEdge = await headObject(edge, 'edge', edge.now());
    expect(atEdge.headers.has('tiercache-cache-control')).toBe(false);
    expect(atEdge.headers.get('cdn-cache-control')).toBe('max-age=300');
    const shield = await storedThen(0, { object });
    expect((await headObject(shield, 'shield', shield.now())).headers.get('tiercache-cache-control')).toBe(
      'max-age=600',
    );
  });

  it('RFC 9111 §4.1: with selecting, answers from the variant the request selects', async () => {
    const read = fakeRead({
      object: textObject('x', { vary: 'accept-language' }),
      selecting: new Headers({ 'accept-language': 'fr' }),
    });
    const objectKey = read.key;
    await drained(read, await resolveObject(read, 0));
    const same = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'fr' }) });
    expect((await headObject(same, 'edge', same.now())).headers.get('cache-status')).toBe(
      'tiercache-edge; hit; ttl=3600',
    );
    const other = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'de' }) });
    // RFC 9211 §2.2: the object's index was found, not this request's variant: a vary-miss.
    expect((await headObject(other, 'edge', other.now())).headers.get('cache-status')).toBe(
      'tiercache-edge; fwd=vary-miss',
    );
    expect(read.upstream.calls.map((call) => call.method)).toEqual(['slices', 'head']);
  });
});

describe('headObject: asked upstream', () => {
  it('a miss asks the next hop for a HEAD (never a GET), and stores nothing', async () => {
    const read = fakeRead({ object: textObject('twelve bytes') });
    const head = await headObject(read, 'shield', read.now());
    expect(read.upstream.calls).toEqual([{ method: 'head', signal: undefined }]);
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(Object.fromEntries(head.headers)).toMatchObject({
      etag: '"v1"',
      'content-length': '12',
      'accept-ranges': 'bytes',
      age: '0',
      'cache-status': 'tiercache-shield; fwd=uri-miss',
    });
    expect(read.cache.count('put')).toBe(0);
  });

  it("passes the read's signal, and the next hop's own status (a 404 without Accept-Ranges)", async () => {
    const signal = new AbortController().signal;
    const read = fakeRead({ signal });
    read.upstream.nextHead(new Response(null, { status: 404, headers: { 'content-type': 'text/plain' } }));
    const head = await headObject(read, 'edge', read.now());
    expect(read.upstream.calls).toEqual([{ method: 'head', signal }]);
    expect(head.status).toBe(404);
    expect(head.headers.has('accept-ranges')).toBe(false);
  });

  it('stale past its windows: asked upstream (fwd=stale), the entry left as it was', async () => {
    const read = await storedThen(120, { object: textObject('x', { 'cache-control': 'max-age=60' }) });
    const head = await headObject(read, 'edge', read.now());
    expect(read.upstream.calls.map((call) => call.method)).toEqual(['slices', 'head']);
    expect(head.headers.get('cache-status')).toBe('tiercache-edge; fwd=stale');
    expect(read.cache.count('put')).toBe(1);
  });

  it('noStale: within stale-while-revalidate still asks upstream', async () => {
    const read = await storedThen(
      70,
      { object: textObject('x', { 'cache-control': 'max-age=60, stale-while-revalidate=600' }) },
      { noStale: true },
    );
    const head = await headObject(read, 'shield', read.now());
    expect(head.headers.get('cache-status')).toBe('tiercache-shield; fwd=stale');
    expect(read.upstream.calls.map((call) => call.method)).toEqual(['slices', 'head']);
  });

  it('a purged entry is deleted and HEAD goes upstream', async () => {
    const read = await storedThen(10, {}, { purged: () => true });
    const head = await headObject(read, 'edge', read.now());
    expect(head.headers.get('cache-status')).toBe('tiercache-edge; fwd=uri-miss');
    expect(read.cache.count('delete', read.key)).toBe(1);
    expect(read.cache.keys()).toEqual([]);
  });

  it('RFC 9111 §5.2.1.7: only-if-cached with nothing usable: a 504, never upstream', async () => {
    const read = fakeRead({ onlyIfCached: true });
    await expect(headObject(read, 'edge', read.now())).rejects.toBeInstanceOf(NotStored);
    const stale = await storedThen(
      120,
      { object: textObject('x', { 'cache-control': 'max-age=60' }) },
      { onlyIfCached: true },
    );
    await expect(headObject(stale, 'edge', stale.now())).rejects.toBeInstanceOf(NotStored);
    expect(read.upstream.calls).toEqual([]);
    expect(stale.upstream.calls.map((call) => call.method)).toEqual(['slices']);
  });

  it('an error that is no HttpError is thrown as it is', async () => {
    const read = fakeRead();
    const bug = new TypeError('a bug');
    read.upstream.nextHead(bug);
    await expect(headObject(read, 'edge', read.now())).rejects.toBe(bug);
  });
});

describe('headObject: errors upstream (RFC 9111 §4.2.4, RFC 5861 §4)', () => {
  it('RFC 5861 §4: a 5xx within stale-if-error is answered from the stale entry', async () => {
    const read = await storedThen(120, {
      object: textObject('x', { 'cache-control': 'max-age=60, stale-if-error=300' }),
    });
    read.upstream.nextHead(new Response(null, { status: 503 }));
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe('"v1"');
    expect(head.headers.get('age')).toBe('120');
    expect(head.headers.get('cache-status')).toContain('detail=stale-if-error');
  });

  it('RFC 9111 §4.2.4: a 5xx without stale-if-error passes', async () => {
    const read = await storedThen(120, { object: textObject('x', { 'cache-control': 'max-age=60' }) });
    read.upstream.nextHead(new Response(null, { status: 500 }));
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(500);
    expect(head.headers.get('cache-status')).toBe('tiercache-edge; fwd=stale');
    expect(head.headers.get('age')).toBe('0');
  });

  it('RFC 9111 §4.2.4: disconnected (the next hop unreachable), a stale entry stands in without stale-if-error', async () => {
    const read = await storedThen(600, { object: textObject('x', { 'cache-control': 'max-age=60' }) });
    read.upstream.nextHead(new Disconnected('shield-unreachable', 'the shield tier could not be reached'));
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe('"v1"');
    expect(head.headers.get('cache-status')).toContain('detail=stale-if-error');
  });

  it("RFC 9111 §4.2.4: the shield's answer naming a disconnection counts as one at the edge", async () => {
    const read = await storedThen(600, { object: textObject('x', { 'cache-control': 'max-age=60' }), ...AT_THE_EDGE });
    read.upstream.nextHead(
      new Response(null, {
        status: 504,
        headers: { 'cache-status': 'tiercache-shield; fwd=uri-miss; detail=origin-timeout' },
      }),
    );
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-status')).toContain('detail=stale-if-error');
  });

  it("RFC 9211 §2.2: a stale copy standing in for a 5xx went forward first: fwd=stale with the next hop's status, as GET reports it", async () => {
    const read = await storedThen(120, {
      object: textObject('x', { 'cache-control': 'max-age=60, stale-if-error=300' }),
    });
    read.upstream.nextHead(new Response(null, { status: 503 }));
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-status')).toBe(
      'tiercache-edge; fwd=stale; fwd-status=503; ttl=-60; detail=stale-if-error',
    );
    // GET, for the same entry and the same answer, reports the same.
    const get = sameTier(read);
    get.upstream.next(wholeAnswer(503, { 'cache-control': 'no-store' }, 'busy'));
    const resolved = await resolveObject(get, 0);
    expect(resolved.report).toEqual({ fwd: 'stale', fwdStatus: 503, ttl: -60, detail: 'stale-if-error' });
    await drained(get, resolved);
  });

  it('RFC 9211 §2.2: disconnected, the stale copy is reported fwd=stale without a fwd-status (no answer came), as GET reports it', async () => {
    const read = await storedThen(600, { object: textObject('x', { 'cache-control': 'max-age=60' }) });
    read.upstream.nextHead(new Disconnected('shield-unreachable', 'the shield tier could not be reached'));
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-status')).toBe('tiercache-edge; fwd=stale; ttl=-540; detail=stale-if-error');
    expect(head.headers.get('age')).toBe('600');
    const get = sameTier(read);
    get.upstream.next(new Disconnected('shield-unreachable', 'the shield tier could not be reached'));
    const resolved = await resolveObject(get, 0);
    expect(resolved.report).toEqual({ fwd: 'stale', ttl: -540, detail: 'stale-if-error' });
    await drained(get, resolved);
  });

  it("RFC 9211 §2.2: the shield's answer naming a disconnection: fwd=stale with the shield's status", async () => {
    const read = await storedThen(600, { object: textObject('x', { 'cache-control': 'max-age=60' }), ...AT_THE_EDGE });
    read.upstream.nextHead(
      new Response(null, {
        status: 504,
        headers: { 'cache-status': 'tiercache-shield; fwd=uri-miss; detail=origin-timeout' },
      }),
    );
    const head = await headObject(read, 'edge', read.now());
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-status')).toBe(
      'tiercache-edge; fwd=stale; fwd-status=504; ttl=-540; detail=stale-if-error',
    );
  });

  it('RFC 9111 §4.2.4: must-revalidate forbids a stale stand-in even when disconnected', async () => {
    const read = await storedThen(120, {
      object: textObject('x', { 'cache-control': 'max-age=60, must-revalidate, stale-if-error=600' }),
    });
    read.upstream.nextHead(new Disconnected('origin-unreachable', 'no route'));
    const head = await headObject(read, 'shield', read.now());
    expect(head.status).toBe(502);
    expect(head.headers.get('cache-status')).toBe('tiercache-shield; fwd=stale; detail=origin-unreachable');
  });

  it("nothing held and disconnected: our own 502 without a body; the shield names why (RFC 9211 §2.8), the edge's member does not", async () => {
    const shield = fakeRead();
    shield.upstream.nextHead(new Disconnected('origin-unreachable', 'no route to the origin'));
    const atShield = await headObject(shield, 'shield', shield.now());
    expect(atShield.status).toBe(502);
    expect(atShield.body).toBeNull();
    expect(atShield.headers.get('cache-status')).toBe('tiercache-shield; fwd=uri-miss; detail=origin-unreachable');
    expect(atShield.headers.get('cache-control')).toBe('no-store');

    const edge = fakeRead(AT_THE_EDGE);
    edge.upstream.nextHead(new Disconnected('shield-unreachable', 'the shield tier could not be reached'));
    const atEdge = await headObject(edge, 'edge', edge.now());
    expect(atEdge.status).toBe(502);
    expect(atEdge.headers.get('cache-status')).toBe('tiercache-edge; fwd=uri-miss');
  });
});
