// resolveObject (shared/tier/object-read.ts) over fake ports: what a tier finds or fetches for
// an object, what it stores, and exactly what it asks its next hop.

import { describe, expect, it } from 'vitest';
import { Disconnected, NotStored, OriginAnswered, VersionChanged } from '../../../shared/http/errors.ts';
import { variantKey } from '../../../shared/http/vary.ts';
import { readManifest } from '../../../shared/slices/object-meta.ts';
import { isFilling } from '../../../shared/tier/collapse.ts';
import { resolveObject } from '../../../shared/tier/object-read.ts';
import { cacheName } from '../../../shared/tier/tier-headers.ts';
import {
  asSliced,
  asWhole,
  drained,
  EPOCH,
  FakeTierCache,
  fakeRead,
  patterned,
  sameTier,
  text,
  textObject,
  wholeAnswer,
} from './fakes.ts';

const LAST_MODIFIED = 'Mon, 02 Mar 2026 09:00:00 GMT';
const V1 = { etag: '"v1"', lastModified: LAST_MODIFIED };

/** The next hop's discovery call for slice `index`, unconditional or with `validators`. */
function discovery(index: number, validators?: { etag: string | null; lastModified: string | null }) {
  return {
    method: 'slices',
    span: { first: index, last: index },
    pinned: undefined,
    validators,
    from: undefined,
    signal: undefined,
  };
}

/** A sliced object: 10,000 bytes in slices of 4,096 (three slices, the last short). */
function slicedObject(headers: Record<string, string> = {}) {
  return {
    body: patterned(10_000),
    sliceSize: 4096,
    headers: { 'content-type': 'video/mp4', etag: '"s1"', 'cache-control': 'max-age=3600', ...headers },
  };
}

describe('resolveObject: a miss', () => {
  it('asks the next hop once for the first slice, unconditionally, and stores the whole answer', async () => {
    const read = fakeRead({ object: textObject('hello, tiers') });
    const resolved = asWhole(await resolveObject(read, 0));
    expect(read.upstream.calls).toEqual([discovery(0)]);
    expect(resolved).toMatchObject({ status: 200, age: 0, originAt: EPOCH, report: { fwd: 'uri-miss', stored: true } });
    expect(resolved.headers.get('etag')).toBe('"v1"');
    expect(await drained(read, resolved)).toBe('hello, tiers');
    const stored = read.cache.unpacked(read.key);
    expect(stored?.meta).toEqual({
      storedAt: EPOCH,
      initialAge: 0,
      lifetime: 3600,
      whileRevalidate: 0,
      ifError: 0,
      mustRevalidate: false,
      originAt: EPOCH,
    });
    expect(new TextDecoder().decode(stored?.bytes)).toBe('hello, tiers');
    expect(stored?.body.length).toBe(12);
    // What the platform is told to keep it for: its freshness plus the hour kept to revalidate by.
    expect(stored?.platformHeaders.get('cache-control')).toBe('public, max-age=7200');
  });

  it('asks for the slice the request needs first, and answers a sliced object with its manifest and that slice', async () => {
    const object = slicedObject();
    const read = fakeRead({ object });
    const sliced = asSliced(await resolveObject(read, 1));
    expect(read.upstream.calls).toEqual([discovery(1)]);
    expect(sliced).toMatchObject({
      meta: { size: 10_000, sliceSize: 4096, etag: '"s1"' },
      inRange: true,
      age: 0,
      report: { fwd: 'uri-miss', stored: true },
    });
    expect(sliced.entry).toMatchObject({ storedAt: EPOCH, lifetime: 3600 });
    expect([...sliced.prefetched.keys()]).toEqual([1]);
    const slice = new Uint8Array(await new Response(sliced.prefetched.get(1)).arrayBuffer());
    expect(slice).toEqual(object.body.slice(4096, 8192));
    expect(await read.settle()).toSatisfy((outcomes: PromiseSettledResult<unknown>[]) =>
      outcomes.every((o) => o.status === 'fulfilled'),
    );
    // The manifest, at the object's key: size, slice size and version, no body.
    const manifest = read.cache.unpacked(read.key);
    expect(manifest?.bytes.byteLength).toBe(0);
    expect(readManifest(manifest!.headers)).toMatchObject({ size: 10_000, sliceSize: 4096, etag: '"s1"' });
  });

  it('a first slice past the end (beyond) still stores the manifest, and says it is out of range', async () => {
    const read = fakeRead({ object: slicedObject() });
    const sliced = asSliced(await resolveObject(read, 7));
    expect(read.upstream.calls).toEqual([discovery(7)]);
    expect(sliced.inRange).toBe(false);
    expect(sliced.prefetched.size).toBe(0);
    expect(sliced.report).toEqual({ fwd: 'uri-miss', stored: true });
    await drained(read, sliced);
    expect(readManifest(read.cache.unpacked(read.key)!.headers)?.size).toBe(10_000);
  });

  it('an answer that may not be stored (no-store) is delivered and not stored', async () => {
    const read = fakeRead({ object: textObject('secret', { 'cache-control': 'no-store' }) });
    const resolved = asWhole(await resolveObject(read, 0));
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: false });
    expect(await drained(read, resolved)).toBe('secret');
    expect(read.cache.count('put')).toBe(0);
    await resolveObject(sameTier(read), 0).then((again) => drained(read, again));
    expect(read.upstream.calls).toHaveLength(2);
  });

  it('RFC 9111 §4.2.2: without explicit freshness, the configured default TTL applies', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': '' }), defaultTtl: 300 });
    await drained(read, await resolveObject(read, 0));
    expect(read.cache.unpacked(read.key)?.meta.lifetime).toBe(300);
  });

  it('RFC 9111 §4.2.2: without explicit freshness or a default, 10% of the time since Last-Modified', async () => {
    // Date (the fake clock) is 10:00, Last-Modified 09:00: an hour, so 360 s.
    const read = fakeRead({ object: textObject('x', { 'cache-control': '' }) });
    await drained(read, await resolveObject(read, 0));
    expect(read.cache.unpacked(read.key)?.meta.lifetime).toBe(360);
  });

  it('RFC 9111 §3: no explicit freshness, no default and no Last-Modified: not stored', async () => {
    const object = textObject('x', { 'cache-control': '' });
    delete object.headers['last-modified'];
    const read = fakeRead({ object });
    const resolved = await resolveObject(read, 0);
    expect(resolved.report.stored).toBe(false);
    await drained(read, resolved);
    expect(read.cache.keys()).toEqual([]);
  });

  it('a body without Content-Length is answered once it has ended, with the length it was counted at, and stored again with it', async () => {
    const read = fakeRead({ object: { ...textObject('counted as it came'), chunked: true } });
    const resolved = asWhole(await resolveObject(read, 0));
    // Held until its end (held-until-whole.ts): a cut would otherwise look complete to the client.
    expect(resolved.headers.get('content-length')).toBe('18');
    expect(await drained(read, resolved)).toBe('counted as it came');
    const stored = read.cache.unpacked(read.key);
    expect(stored?.body.length).toBe(18);
    expect(stored?.headers.get('content-length')).toBe('18');
    const hit = asWhole(await resolveObject(sameTier(read), 0));
    expect(hit.headers.get('content-length')).toBe('18');
    expect(await text(hit.body)).toBe('counted as it came');
  });

  for (const careless of [false, true]) {
    it(`a body that breaks part-way fails the client and leaves nothing stored (${careless ? 'a platform that keeps what arrived' : 'a platform that refuses it'})`, async () => {
      const body = patterned(1000);
      const cache = new FakeTierCache({ careless });
      const read = fakeRead({
        object: { body, headers: { etag: '"b1"', 'cache-control': 'max-age=60' }, breakAt: 300 },
        cache,
      });
      const resolved = asWhole(await resolveObject(read, 0));
      await expect(new Response(resolved.body).arrayBuffer()).rejects.toThrow();
      await read.settle();
      expect(read.cache.keys()).toEqual([]);
      // The next request finds nothing to serve, and goes upstream again.
      read.upstream.object = { body, headers: { etag: '"b1"', 'cache-control': 'max-age=60' } };
      const again = sameTier(read);
      const second = asWhole(await resolveObject(again, 0));
      expect(second.report.fwd).toBe('uri-miss');
      expect(new Uint8Array(await new Response(second.body).arrayBuffer())).toEqual(body);
      expect(read.upstream.calls).toHaveLength(2);
    });
  }

  it('an error the next hop throws is answered as its response; a 502 is not stored', async () => {
    const read = fakeRead();
    read.upstream.next(new Disconnected('origin-unreachable', 'no route to the origin'));
    const resolved = asWhole(await resolveObject(read, 0));
    expect(resolved.status).toBe(502);
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: false, detail: 'origin-unreachable' });
    await drained(read, resolved);
    expect(read.cache.keys()).toEqual([]);
  });

  it('a version change met during discovery is thrown to the caller, and nothing is stored', async () => {
    const read = fakeRead();
    read.upstream.next(new VersionChanged('etag mismatch'));
    await expect(resolveObject(read, 0)).rejects.toBeInstanceOf(VersionChanged);
    expect(isFilling(read.key)).toBe(false);
    expect(read.cache.keys()).toEqual([]);
  });
});

describe('resolveObject: a fresh hit', () => {
  it('answers from the store without asking upstream, its age and remaining freshness by the clock (RFC 9111 §4.2.3)', async () => {
    const read = fakeRead();
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(100);
    const hit = sameTier(read);
    const resolved = asWhole(await resolveObject(hit, 0));
    expect(read.upstream.calls).toHaveLength(1);
    expect(resolved).toMatchObject({ status: 200, age: 100, originAt: EPOCH, report: { hit: true, ttl: 3500 } });
    expect(resolved.headers.get('etag')).toBe('"v1"');
    // The platform's own fields never reach the tier's answer.
    expect(resolved.headers.has('cf-cache-status')).toBe(false);
    expect(resolved.headers.has('x-tiercache-entry')).toBe(false);
    expect(await text(resolved.body)).toBe('hello, tiers');
  });

  it('a sliced object hits on its manifest: no prefetched slice, no upstream call', async () => {
    const read = fakeRead({ object: slicedObject() });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(10);
    const sliced = asSliced(await resolveObject(sameTier(read), 2));
    expect(read.upstream.calls).toHaveLength(1);
    expect(sliced).toMatchObject({
      inRange: true,
      age: 10,
      report: { hit: true, ttl: 3590 },
      upstreamHeaders: undefined,
      meta: { etag: '"s1"', size: 10_000 },
    });
    expect(sliced.prefetched.size).toBe(0);
  });

  it('RFC 9111 §4.2.3: the Age the next hop sent counts in the current age: stale that much sooner', async () => {
    const read = fakeRead({ object: textObject('aged', { age: '600' }) });
    const first = await resolveObject(read, 0);
    expect(first.age).toBe(600);
    await drained(read, first);
    read.clock.advance(2999);
    const fresh = await resolveObject(sameTier(read), 0);
    expect(fresh.report).toEqual({ hit: true, ttl: 1 });
    await drained(read, fresh);
    read.clock.advance(1);
    const stale = await resolveObject(sameTier(read), 0);
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0, V1)]);
    expect(stale.report).toMatchObject({ fwd: 'stale', fwdStatus: 304 });
    await drained(read, stale);
  });

  it('an entry the platform has let go of (past its retention) is a miss', async () => {
    const read = fakeRead();
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(7200);
    const resolved = await resolveObject(sameTier(read), 0);
    expect(resolved.report.fwd).toBe('uri-miss');
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0)]);
    await drained(read, resolved);
  });
});

describe('resolveObject: a manifest that does not read', () => {
  const unreadable: [string, (headers: [string, string][]) => [string, string][]][] = [
    [
      'without the pinned version (as the release before the pin had its own field wrote it)',
      (headers) => headers.filter(([name]) => name !== 'x-tiercache-pin'),
    ],
    [
      'pinned to a weak tag',
      (headers) => headers.map(([name, value]) => [name, name === 'x-tiercache-pin' ? 'W/"s1"' : value]),
    ],
    [
      'with a garbled marker',
      (headers) => headers.map(([name, value]) => [name, name === 'x-tiercache-object' ? 'garbled' : value]),
    ],
  ];
  for (const [what, rewrite] of unreadable) {
    it(`${what}: is a miss, deleted and fetched again, never a whole response with the manifest's empty body`, async () => {
      const object = slicedObject();
      const read = fakeRead({ object });
      asSliced(await resolveObject(read, 0));
      await read.settle();
      const kept = read.cache.entries.get(read.key);
      if (kept === undefined) throw new Error('the manifest was not stored');
      kept.headers = rewrite(kept.headers);
      const again = sameTier(read);
      const resolved = asSliced(await resolveObject(again, 0));
      expect(resolved.report).toMatchObject({ fwd: 'uri-miss', stored: true });
      expect(again.upstream.calls.at(-1)).toEqual(discovery(0));
      await again.settle();
      expect(readManifest(again.cache.unpacked(again.key)!.headers)).toMatchObject({
        size: 10_000,
        sliceSize: 4096,
        etag: '"s1"',
      });
    });
  }

  it('RFC 9111 §4.3.4: a 304 whose ETag matches no stored version updates nothing: the object is asked for again, unconditionally', async () => {
    const object = slicedObject({ 'cache-control': 'max-age=60' });
    const read = fakeRead({ object });
    asSliced(await resolveObject(read, 0));
    await read.settle();
    read.clock.advance(61);
    const again = sameTier(read);
    again.upstream.notModifiedHeaders = { etag: '"other"' };
    const resolved = asSliced(await resolveObject(again, 0));
    expect(resolved.meta.etag).toBe('"s1"');
    expect(again.upstream.calls.slice(-2)).toEqual([discovery(0, { etag: '"s1"', lastModified: null }), discovery(0)]);
  });
});

describe('resolveObject: an empty object (0 bytes) is a whole entry, like any small one', () => {
  it('is stored whole with no bytes and no marks, and hit with an empty body, never taken for a manifest', async () => {
    const read = fakeRead({ object: textObject('') });
    const miss = asWhole(await resolveObject(read, 0));
    expect(miss.headers.get('content-length')).toBe('0');
    expect(await drained(read, miss)).toBe('');
    const stored = read.cache.unpacked(read.key);
    expect(stored?.body.length).toBe(0);
    expect(stored?.bytes.byteLength).toBe(0);
    expect(readManifest(stored!.headers)).toBeUndefined();
    // The platform hands it back without a body: the tier still has the empty one a 200 carries.
    expect((await read.cache.match(new Request(read.key)))?.body).toBeNull();
    const hit = asWhole(await resolveObject(sameTier(read), 0));
    expect(hit).toMatchObject({ status: 200, report: { hit: true } });
    expect(hit.headers.get('content-length')).toBe('0');
    expect(hit.headers.get('etag')).toBe('"v1"');
    expect(hit.body).not.toBeNull();
    expect(await text(hit.body)).toBe('');
    expect(read.upstream.calls).toEqual([discovery(0)]);
  });

  it('RFC 9111 §4.3.4: a 304 renews it: stored again with the new headers and freshness', async () => {
    const read = fakeRead({ object: textObject('', { 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(120);
    read.upstream.notModifiedHeaders = { etag: '"v1"', 'cache-control': 'max-age=600' };
    const stale = sameTier(read);
    const renewed = asWhole(await resolveObject(stale, 0));
    expect(renewed.report).toMatchObject({ fwd: 'stale', fwdStatus: 304, stored: true });
    expect(await drained(stale, renewed)).toBe('');
    expect(read.cache.unpacked(read.key)?.meta).toMatchObject({ storedAt: EPOCH + 120_000, lifetime: 600 });
    read.clock.advance(300);
    const hit = await resolveObject(sameTier(read), 0);
    expect(hit.report).toEqual({ hit: true, ttl: 300 });
    await drained(read, hit);
  });
});

describe('resolveObject: a stale entry is revalidated (RFC 9111 §4.3)', () => {
  it('RFC 9111 §4.3.1: asks with the validators it holds; RFC 9111 §4.3.4: a 304 updates the stored headers and freshness, the body stands', async () => {
    const read = fakeRead({ object: textObject('kept bytes', { 'cache-control': 'max-age=60', 'x-note': 'old' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(120);
    // RFC 9111 §3.2: every field the 304 sends replaces the stored one, but Content-Length,
    // and those the stored bytes depend on (their type and coding).
    read.upstream.notModifiedHeaders = {
      etag: '"v1"',
      'cache-control': 'max-age=600',
      'x-note': 'new',
      'content-type': 'application/x-other',
      'content-length': '999',
    };
    const stale = sameTier(read);
    const resolved = asWhole(await resolveObject(stale, 0));
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0, V1)]);
    expect(resolved).toMatchObject({
      status: 200,
      age: 0,
      originAt: EPOCH + 120_000,
      report: { fwd: 'stale', fwdStatus: 304, stored: true },
    });
    expect(resolved.headers.get('cache-control')).toBe('max-age=600');
    expect(resolved.headers.get('x-note')).toBe('new');
    expect(resolved.headers.get('content-type')).toBe('text/plain');
    expect(resolved.headers.get('content-length')).toBe('10');
    expect(resolved.headers.get('date')).toBe(new Date(EPOCH + 120_000).toUTCString());
    expect(await drained(stale, resolved)).toBe('kept bytes');
    const stored = read.cache.unpacked(read.key);
    expect(stored?.meta).toMatchObject({ storedAt: EPOCH + 120_000, lifetime: 600 });
    expect(stored?.headers.get('x-note')).toBe('new');
    expect(new TextDecoder().decode(stored?.bytes)).toBe('kept bytes');
    // Fresh again: the next request is a hit.
    read.clock.advance(300);
    const hit = await resolveObject(sameTier(read), 0);
    expect(hit.report).toEqual({ hit: true, ttl: 300 });
    expect(read.upstream.calls).toHaveLength(2);
    await drained(read, hit);
  });

  it('RFC 9111 §4.3.1: with only Last-Modified held, asks with that alone', async () => {
    const object = textObject('dated', { 'cache-control': 'max-age=60' });
    delete object.headers.etag;
    const read = fakeRead({ object });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    const resolved = await resolveObject(sameTier(read), 0);
    expect(read.upstream.calls[1]).toEqual(discovery(0, { etag: null, lastModified: LAST_MODIFIED }));
    expect(resolved.report).toMatchObject({ fwd: 'stale', fwdStatus: 304 });
    await drained(read, resolved);
  });

  it('RFC 9111 §4.3.3: a full answer (a new version) replaces the stored one', async () => {
    const read = fakeRead({ object: textObject('first', { 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    read.upstream.object = textObject('second', { etag: '"v2"', 'cache-control': 'max-age=60' });
    const stale = sameTier(read);
    const resolved = asWhole(await resolveObject(stale, 0));
    expect(read.upstream.calls[1]).toEqual(discovery(0, V1));
    expect(resolved.report).toEqual({ fwd: 'stale', stored: true });
    expect(await drained(stale, resolved)).toBe('second');
    expect(read.cache.unpacked(read.key)?.headers.get('etag')).toBe('"v2"');
    expect(new TextDecoder().decode(read.cache.unpacked(read.key)?.bytes)).toBe('second');
  });

  it('RFC 9111 §4.3.4: a 304 for a sliced object rewrites its manifest with the new headers', async () => {
    const read = fakeRead({ object: slicedObject({ 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    read.upstream.notModifiedHeaders = { etag: '"s1"', 'cache-control': 'max-age=900', 'x-note': 'new' };
    const stale = sameTier(read);
    const sliced = asSliced(await resolveObject(stale, 1));
    expect(read.upstream.calls[1]).toEqual(discovery(1, { etag: '"s1"', lastModified: null }));
    expect(sliced).toMatchObject({
      inRange: true,
      report: { fwd: 'stale', fwdStatus: 304, stored: true },
      meta: { etag: '"s1"', size: 10_000 },
    });
    expect(sliced.meta.headers.get('cache-control')).toBe('max-age=900');
    expect(sliced.prefetched.size).toBe(0);
    await drained(stale, sliced);
    const manifest = read.cache.unpacked(read.key);
    expect(manifest?.meta.lifetime).toBe(900);
    expect(readManifest(manifest!.headers)?.headers.get('x-note')).toBe('new');
  });

  it('a 304 whose headers forbid storing (no-store) still answers from the held body, and stores nothing new', async () => {
    const read = fakeRead({ object: textObject('held', { 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    read.upstream.notModifiedHeaders = { etag: '"v1"', 'cache-control': 'no-store' };
    const stale = sameTier(read);
    const resolved = asWhole(await resolveObject(stale, 0));
    expect(resolved.report).toEqual({ fwd: 'stale', fwdStatus: 304, stored: false });
    expect(await drained(stale, resolved)).toBe('held');
    expect(read.cache.count('put')).toBe(1);
    expect(read.cache.unpacked(read.key)?.meta.storedAt).toBe(EPOCH);
  });
});

describe('resolveObject: a soft-purged entry (shared/purge/soft-purge.ts) is an expired one', () => {
  it('keeps it, revalidates it with its validators however fresh it was; the 304 renews it past the purge', async () => {
    const read = fakeRead({ object: textObject('kept bytes', { 'cache-control': 'max-age=3600' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(10);
    const purgeAt = read.clock.now();
    read.clock.advance(1);
    const softPurgedAt = (entry: { meta: { storedAt: number; originAt?: number } }) =>
      (entry.meta.originAt ?? entry.meta.storedAt) <= purgeAt ? purgeAt : undefined;
    const resolved = asWhole(await resolveObject(sameTier(read, { softPurgedAt }), 0));
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0, V1)]);
    expect(resolved.report).toMatchObject({ fwd: 'stale', fwdStatus: 304, stored: true });
    expect(await drained(read, resolved)).toBe('kept bytes');
    // Its origin time is the 304's, after the purge: a hit again.
    expect(read.cache.unpacked(read.key)?.meta.originAt).toBeGreaterThan(purgeAt);
    const hit = await resolveObject(sameTier(read, { softPurgedAt }), 0);
    expect(hit.report).toMatchObject({ hit: true });
    expect(read.upstream.calls).toHaveLength(2);
    await drained(read, hit);
  });

  it('serves it stale with its own stale-while-revalidate, counted from the purge', async () => {
    const read = fakeRead({
      object: textObject('swr bytes', { 'cache-control': 'max-age=3600, stale-while-revalidate=30' }),
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(100);
    const purgeAt = read.clock.now();
    read.clock.advance(5);
    const softPurgedAt = () => purgeAt;
    const resolved = await resolveObject(sameTier(read, { softPurgedAt }), 0);
    expect(resolved.report).toEqual({ hit: true, ttl: -5, detail: 'stale-while-revalidate' });
    await drained(read, resolved);
  });
});

describe('resolveObject: stale-while-revalidate (RFC 5861 §3)', () => {
  it('RFC 5861 §3: within the window, serves the stale copy now and revalidates in the background', async () => {
    const read = fakeRead({
      object: textObject('stale ok', { 'cache-control': 'max-age=60, stale-while-revalidate=30' }),
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(70);
    const stale = sameTier(read);
    const resolved = asWhole(await resolveObject(stale, 0));
    expect(resolved.report).toEqual({ hit: true, ttl: -10, detail: 'stale-while-revalidate' });
    expect(resolved.age).toBe(70);
    expect(await drained(stale, resolved)).toBe('stale ok');
    // The refresh, once the answer went: conditional, and it made the entry fresh again.
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0, V1)]);
    expect(read.cache.unpacked(read.key)?.meta.storedAt).toBe(EPOCH + 70_000);
    expect(isFilling(stale.key)).toBe(false);
    const hit = await resolveObject(sameTier(read), 0);
    expect(hit.report).toEqual({ hit: true, ttl: 60 });
    await drained(read, hit);
  });

  it('RFC 5861 §3: the operator default window applies when the response gives none', async () => {
    const read = fakeRead({
      object: textObject('x', { 'cache-control': 'max-age=60' }),
      staleDefaults: { whileRevalidate: 30, ifError: 0 },
    });
    await drained(read, await resolveObject(read, 0));
    expect(read.cache.unpacked(read.key)?.meta.whileRevalidate).toBe(30);
    read.clock.advance(80);
    const stale = sameTier(read);
    const resolved = await resolveObject(stale, 0);
    expect(resolved.report.detail).toBe('stale-while-revalidate');
    await drained(stale, resolved);
  });

  it("RFC 5861 §3: a response's own stale-while-revalidate=0 overrides the default", async () => {
    const read = fakeRead({
      object: textObject('x', { 'cache-control': 'max-age=60, stale-while-revalidate=0' }),
      staleDefaults: { whileRevalidate: 30, ifError: 0 },
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    const resolved = await resolveObject(sameTier(read), 0);
    expect(resolved.report).toMatchObject({ fwd: 'stale', fwdStatus: 304 });
    await drained(read, resolved);
  });

  it('past the window, revalidates before answering', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60, stale-while-revalidate=30' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(91);
    const resolved = await resolveObject(sameTier(read), 0);
    // Asked before the answer, not after it.
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0, V1)]);
    expect(resolved.report).toEqual({ fwd: 'stale', fwdStatus: 304, stored: true });
    await drained(read, resolved);
  });

  it('a background refresh that fails leaves the stale entry for the next request to revalidate', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60, stale-while-revalidate=30' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(70);
    read.upstream.next(new Error('a bug in the next hop'));
    const stale = sameTier(read);
    await drained(stale, await resolveObject(stale, 0));
    expect(read.upstream.calls).toHaveLength(2);
    expect(read.cache.unpacked(read.key)?.meta.storedAt).toBe(EPOCH);
    expect(isFilling(stale.key)).toBe(false);
  });

  it('RFC 9111 §5.2.2.2: must-revalidate forbids serving stale, whatever the window', async () => {
    const read = fakeRead({
      object: textObject('x', { 'cache-control': 'max-age=60, must-revalidate, stale-while-revalidate=30' }),
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    const resolved = await resolveObject(sameTier(read), 0);
    expect(resolved.report).toEqual({ fwd: 'stale', fwdStatus: 304, stored: true });
    await drained(read, resolved);
  });
});

describe('resolveObject: stale-if-error (RFC 5861 §4) and disconnection (RFC 9111 §4.2.4)', () => {
  const failing = () => wholeAnswer(500, { 'cache-control': 'no-store' }, 'origin broke');

  it('RFC 5861 §4: a 5xx answer to a revalidation is replaced by the stale copy within stale-if-error', async () => {
    const read = fakeRead({ object: textObject('still good', { 'cache-control': 'max-age=60, stale-if-error=300' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(120);
    read.upstream.next(failing());
    const stale = sameTier(read);
    const resolved = asWhole(await resolveObject(stale, 0));
    expect(read.upstream.calls[1]).toEqual(discovery(0, V1));
    expect(resolved).toMatchObject({
      status: 200,
      age: 120,
      report: { fwd: 'stale', fwdStatus: 500, detail: 'stale-if-error', ttl: -60 },
    });
    expect(await drained(stale, resolved)).toBe('still good');
    expect(isFilling(stale.key)).toBe(false);
  });

  it('RFC 5861 §4: the operator default stale-if-error applies when the response gives none', async () => {
    const read = fakeRead({
      object: textObject('still good', { 'cache-control': 'max-age=60' }),
      staleDefaults: { whileRevalidate: 0, ifError: 300 },
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(120);
    read.upstream.next(failing());
    const resolved = await resolveObject(sameTier(read), 0);
    expect(resolved.report).toMatchObject({ fwd: 'stale', fwdStatus: 500, detail: 'stale-if-error' });
    expect(await drained(read, resolved)).toBe('still good');
  });

  it('RFC 5861 §4: past the stale-if-error window, the error passes', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60, stale-if-error=300' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(400);
    read.upstream.next(failing());
    const resolved = asWhole(await resolveObject(sameTier(read), 0));
    expect(resolved.status).toBe(500);
    expect(resolved.report).toEqual({ fwd: 'stale', stored: false, fwdStatus: 500 });
    expect(await drained(read, resolved)).toBe('origin broke');
  });

  it('RFC 9111 §4.2.4: an origin error without stale-if-error passes (the cache is not disconnected)', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(120);
    read.upstream.next(wholeAnswer(502, { 'cache-control': 'no-store' }, 'bad gateway'));
    const resolved = asWhole(await resolveObject(sameTier(read), 0));
    expect(resolved.status).toBe(502);
    await drained(read, resolved);
  });

  it('RFC 5861 §4: a disconnection the next hop throws, within stale-if-error: the stale copy stands in', async () => {
    const read = fakeRead({
      object: textObject('offline copy', { 'cache-control': 'max-age=60, stale-if-error=900' }),
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(600);
    read.upstream.next(new Disconnected('origin-timeout', 'the origin did not answer in time'));
    const stale = sameTier(read);
    const resolved = asWhole(await resolveObject(stale, 0));
    expect(resolved).toMatchObject({ status: 200, report: { fwd: 'stale', detail: 'stale-if-error', ttl: -540 } });
    // Ours, not the next hop's: there was no answer to report the status of.
    expect(resolved.report.fwdStatus).toBeUndefined();
    expect(await drained(stale, resolved)).toBe('offline copy');
  });

  it("RFC 9111 §4.2.4: the next tier's answer naming a disconnection (its Cache-Status detail) counts as one", async () => {
    // The next tier is the shield (ports.ts nextMember): its member's detail is what is read.
    const read = fakeRead({
      object: textObject('offline copy', { 'cache-control': 'max-age=60' }),
      nextMember: cacheName('shield'),
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(600);
    read.upstream.next(
      wholeAnswer(
        502,
        { 'cache-control': 'no-store', 'cache-status': 'tiercache-shield; fwd=uri-miss; detail=origin-unreachable' },
        'unreachable',
      ),
    );
    const resolved = await resolveObject(sameTier(read), 0);
    expect(resolved.report).toMatchObject({ fwd: 'stale', fwdStatus: 502, detail: 'stale-if-error' });
    expect(await drained(read, resolved)).toBe('offline copy');
  });

  // Whatever stale-if-error says (none, the operator's default, the response's own), 600 s is past
  // it: only being disconnected lets the stale copy stand in, for GET as for HEAD (object-head.ts).
  for (const [name, cacheControl, ifError] of [
    ['no stale-if-error', 'max-age=60', 0],
    ['past the default stale-if-error', 'max-age=60', 300],
    ['past its own stale-if-error', 'max-age=60, stale-if-error=300', 0],
  ] as const) {
    it(`RFC 9111 §4.2.4: disconnected (the next hop unreachable, ${name}), the stale copy stands in, reported as stale-if-error`, async () => {
      const read = fakeRead({
        object: textObject('offline copy', { 'cache-control': cacheControl }),
        staleDefaults: { whileRevalidate: 0, ifError },
      });
      await drained(read, await resolveObject(read, 0));
      read.clock.advance(600);
      read.upstream.next(new Disconnected('shield-unreachable', 'the shield tier could not be reached'));
      const stale = sameTier(read);
      const resolved = asWhole(await resolveObject(stale, 0));
      expect(read.upstream.calls[1]).toEqual(discovery(0, V1));
      expect(resolved).toMatchObject({ status: 200, age: 600 });
      // Ours, not the next hop's: there was no answer to report the status of.
      expect(resolved.report).toEqual({ fwd: 'stale', ttl: -540, detail: 'stale-if-error' });
      expect(await drained(stale, resolved)).toBe('offline copy');
      expect(isFilling(stale.key)).toBe(false);
    });
  }

  it('RFC 9111 §4.2.4: noStale (the edge revalidating its own copy) reports the disconnection instead: the edge decides with its copy', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(600);
    read.upstream.next(new Disconnected('origin-unreachable', 'no route'));
    const strict = sameTier(read, { noStale: true });
    const refused = asWhole(await resolveObject(strict, 0));
    expect(refused).toMatchObject({
      status: 502,
      report: { fwd: 'stale', stored: false, detail: 'origin-unreachable' },
    });
    await drained(strict, refused);
  });

  it('RFC 9111 §4.2.4: must-revalidate forbids a stale answer, on an error and when disconnected: ours, saying why', async () => {
    const read = fakeRead({
      object: textObject('x', { 'cache-control': 'max-age=60, must-revalidate, stale-if-error=300' }),
    });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(120);
    read.upstream.next(failing());
    const passed = asWhole(await resolveObject(sameTier(read), 0));
    expect(passed.status).toBe(500);
    await drained(read, passed);
    read.upstream.next(new Disconnected('origin-unreachable', 'no route'));
    const another = sameTier(read);
    const refused = asWhole(await resolveObject(another, 0));
    expect(refused).toMatchObject({
      status: 502,
      report: { fwd: 'stale', stored: false, detail: 'origin-unreachable' },
    });
    await drained(another, refused);
    expect(isFilling(another.key)).toBe(false);
  });
});

describe('resolveObject: only-if-cached (RFC 9111 §5.2.1.7)', () => {
  it('RFC 9111 §5.2.1.7: nothing stored: a 504, and the next hop is never asked', async () => {
    const read = fakeRead({ onlyIfCached: true });
    const refused = resolveObject(read, 0);
    await expect(refused).rejects.toBeInstanceOf(NotStored);
    await expect(refused).rejects.toMatchObject({ status: 504, detail: 'only-if-cached' });
    expect(read.upstream.calls).toEqual([]);
  });

  it('RFC 9111 §5.2.1.7: a stale entry that would need revalidating: a 504, not a revalidation', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    await expect(resolveObject(sameTier(read, { onlyIfCached: true }), 0)).rejects.toBeInstanceOf(NotStored);
    expect(read.upstream.calls).toHaveLength(1);
  });

  it('RFC 9111 §5.2.1.7: a fresh entry answers', async () => {
    const read = fakeRead();
    await drained(read, await resolveObject(read, 0));
    const hit = await resolveObject(sameTier(read, { onlyIfCached: true }), 0);
    expect(hit.report).toEqual({ hit: true, ttl: 3600 });
    expect(read.upstream.calls).toHaveLength(1);
    await drained(read, hit);
  });
});

describe('resolveObject: noStale (the edge revalidating its own copy, at the shield)', () => {
  it('never answers stale within stale-while-revalidate: revalidates first', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60, stale-while-revalidate=600' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    const resolved = await resolveObject(sameTier(read, { noStale: true }), 0);
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0, V1)]);
    expect(resolved.report).toEqual({ fwd: 'stale', fwdStatus: 304, stored: true });
    await drained(read, resolved);
  });

  it('reports the origin error rather than standing in with stale-if-error: the edge decides with its copy', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60, stale-if-error=600' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    read.upstream.next(wholeAnswer(503, { 'cache-control': 'no-store' }, 'busy'));
    const resolved = asWhole(await resolveObject(sameTier(read, { noStale: true }), 0));
    expect(resolved.status).toBe(503);
    expect(await drained(read, resolved)).toBe('busy');
  });
});

describe('resolveObject: purges', () => {
  it('a purged entry is deleted and counts as a miss: asked for unconditionally, and stored afresh', async () => {
    const read = fakeRead();
    await drained(read, await resolveObject(read, 0));
    const purgedAt = read.clock.now();
    read.clock.advance(10);
    const purged = (entry: { meta: { storedAt: number; originAt?: number } }) =>
      (entry.meta.originAt ?? entry.meta.storedAt) <= purgedAt;
    const after = sameTier(read, { purged });
    const resolved = asWhole(await resolveObject(after, 0));
    expect(read.cache.count('delete', read.key)).toBe(1);
    expect(read.upstream.calls).toEqual([discovery(0), discovery(0)]);
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: true });
    await drained(after, resolved);
    expect(read.cache.unpacked(read.key)?.meta.storedAt).toBe(EPOCH + 10_000);
    // Stored after the purge: a hit now.
    const hit = await resolveObject(sameTier(read, { purged }), 0);
    expect(hit.report.hit).toBe(true);
    await drained(read, hit);
  });

  it('a purge of a sliced object forgets its manifest', async () => {
    const read = fakeRead({ object: slicedObject() });
    await drained(read, await resolveObject(read, 0));
    const after = sameTier(read, { purged: () => true });
    read.upstream.next(new Disconnected('origin-unreachable', 'no route'));
    const resolved = asWhole(await resolveObject(after, 0));
    expect(resolved.status).toBe(502);
    await drained(after, resolved);
    expect(read.cache.keys()).toEqual([]);
  });
});

describe('resolveObject: negative caching', () => {
  const missing = () => ({
    body: new TextEncoder().encode('no such object'),
    status: 404,
    headers: { 'content-type': 'text/plain' },
  });

  it('a 404 without freshness of its own is stored for the negative TTL, with no stale windows', async () => {
    const read = fakeRead({ object: missing(), negativeTtl: 60, staleDefaults: { whileRevalidate: 30, ifError: 300 } });
    const resolved = asWhole(await resolveObject(read, 0));
    expect(resolved.status).toBe(404);
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: true, fwdStatus: 404 });
    expect(await drained(read, resolved)).toBe('no such object');
    expect(read.cache.unpacked(read.key)?.meta).toMatchObject({ lifetime: 60, whileRevalidate: 0, ifError: 0 });
    // The platform is handed a 200; the status travels in the envelope.
    expect(read.cache.entries.get(read.key)?.status).toBe(200);
    read.clock.advance(59);
    const hit = asWhole(await resolveObject(sameTier(read), 0));
    expect(hit).toMatchObject({ status: 404, report: { hit: true, ttl: 1 } });
    expect(await text(hit.body)).toBe('no such object');
    expect(read.upstream.calls).toHaveLength(1);
  });

  it('RFC 5861: the default stale windows are for objects: a stale 404 never stands in for an error', async () => {
    const read = fakeRead({ object: missing(), staleDefaults: { whileRevalidate: 30, ifError: 300 } });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    read.upstream.next(wholeAnswer(500, { 'cache-control': 'no-store' }, 'broke'));
    const stale = sameTier(read);
    const resolved = asWhole(await resolveObject(stale, 0));
    // Revalidated (it holds no validators: asked with none), and the error passes.
    expect(read.upstream.calls[1]).toEqual(discovery(0, { etag: null, lastModified: null }));
    expect(resolved.status).toBe(500);
    await drained(stale, resolved);
  });

  it("RFC 9111 §4.2.1: a 404's own max-age wins over the negative TTL", async () => {
    const read = fakeRead({ object: { ...missing(), headers: { 'cache-control': 'max-age=5' } }, negativeTtl: 60 });
    await drained(read, await resolveObject(read, 0));
    expect(read.cache.unpacked(read.key)?.meta.lifetime).toBe(5);
  });

  it("a 404 thrown by the next hop (S3's NoSuchKey) is stored like one it answered", async () => {
    const read = fakeRead();
    read.upstream.next(new OriginAnswered(404, 'NoSuchKey').from(404));
    const resolved = asWhole(await resolveObject(read, 0));
    expect(resolved.status).toBe(404);
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: true, fwdStatus: 404 });
    await drained(read, resolved);
    expect(read.cache.unpacked(read.key)?.meta.lifetime).toBe(60);
    const hit = asWhole(await resolveObject(sameTier(read), 0));
    expect(hit.status).toBe(404);
    expect(read.upstream.calls).toHaveLength(1);
    await drained(read, hit);
  });

  it('with a negative TTL of 0, a 404 without freshness is not stored', async () => {
    const read = fakeRead({ object: missing(), negativeTtl: 0 });
    const resolved = await resolveObject(read, 0);
    expect(resolved.report.stored).toBe(false);
    await drained(read, resolved);
    expect(read.cache.keys()).toEqual([]);
  });
});

describe('resolveObject: Vary (RFC 9111 §4.1), when the tier keys by the request (selecting)', () => {
  // Keyed by the request's exact values: Accept-Language (Accept-Encoding is keyed by the answer's coding, below).
  const varying = () => textObject('encoded for you', { vary: 'Accept-Language' });

  it('RFC 9111 §4.1: stores the answer under its variant, and an index at the object key naming the fields', async () => {
    const selecting = new Headers({ 'accept-language': 'fr' });
    const read = fakeRead({ object: varying(), selecting });
    const objectKey = read.key;
    const resolved = await resolveObject(read, 0);
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: true });
    expect(await drained(read, resolved)).toBe('encoded for you');
    const variant = variantKey(objectKey, ['accept-language'], selecting)!;
    expect(read.key).toBe(variant);
    expect(read.objectKey).toBe(objectKey);
    expect(read.cache.keys().sort()).toEqual([objectKey, variant].sort());
    expect(read.cache.unpacked(objectKey)?.headers.get('x-tiercache-vary')).toBe('accept-language');
    expect(new TextDecoder().decode(read.cache.unpacked(variant)?.bytes)).toBe('encoded for you');
  });

  it('RFC 9111 §4.1: a request selecting the same values hits that variant; others miss and get their own', async () => {
    const read = fakeRead({ object: varying(), selecting: new Headers({ 'accept-language': 'fr' }) });
    const objectKey = read.key;
    await drained(read, await resolveObject(read, 0));

    const same = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'fr' }) });
    const hit = await resolveObject(same, 0);
    expect(hit.report).toEqual({ hit: true, ttl: 3600 });
    expect(same.key).toBe(read.key);
    await drained(same, hit);
    expect(read.upstream.calls).toHaveLength(1);

    const other = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'de' }) });
    const miss = await resolveObject(other, 0);
    expect(miss.report).toMatchObject({ stored: true });
    expect(miss.report.hit).toBeUndefined();
    await drained(other, miss);
    expect(read.upstream.calls).toHaveLength(2);
    // §4.1: a field absent from the request matches only its absence.
    const none = sameTier(read, { key: objectKey, selecting: new Headers() });
    await drained(none, await resolveObject(none, 0));
    expect(read.upstream.calls).toHaveLength(3);
    expect(new Set([read.key, other.key, none.key]).size).toBe(3);
    expect(read.cache.keys()).toHaveLength(4);
    // Each variant is still there for its own requests.
    const again = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'de' }) });
    const second = await resolveObject(again, 0);
    expect(second.report.hit).toBe(true);
    await drained(again, second);
  });

  it("RFC 9211 §2.2: a request that finds the object's Vary index but not its own variant is a vary-miss", async () => {
    const read = fakeRead({ object: varying(), selecting: new Headers({ 'accept-language': 'fr' }) });
    const objectKey = read.key;
    const first = await resolveObject(read, 0);
    // Nothing at all was held for the URL: that one was a uri-miss.
    expect(first.report).toEqual({ fwd: 'uri-miss', stored: true });
    await drained(read, first);
    const other = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'de' }) });
    const miss = await resolveObject(other, 0);
    expect(miss.report).toEqual({ fwd: 'vary-miss', stored: true });
    await drained(other, miss);
    // Another such request waiting for the one fetching its variant: a vary-miss too, collapsed.
    const leading = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'it' }) });
    const waiting = sameTier(read, { key: objectKey, selecting: new Headers({ 'accept-language': 'it' }) });
    read.upstream.hold();
    const led = resolveObject(leading, 0);
    const waited = resolveObject(waiting, 0);
    await new Promise((resolve) => setTimeout(resolve, 10));
    read.upstream.release();
    const ledResolved = await led;
    expect(ledResolved.report).toEqual({ fwd: 'vary-miss', stored: true });
    await drained(leading, ledResolved);
    const waitedResolved = await waited;
    expect(waitedResolved.report).toEqual({ fwd: 'vary-miss', collapsed: true, ttl: 3600 });
    await drained(waiting, waitedResolved);
    expect(read.upstream.calls).toHaveLength(3);
    // Values too long to key a variant by (vary.ts): the index was found all the same, and nothing is stored.
    const unkeyable = sameTier(read, {
      key: objectKey,
      selecting: new Headers({ 'accept-language': 'x'.repeat(3000) }),
    });
    const unstored = await resolveObject(unkeyable, 0);
    expect(unstored.report).toEqual({ fwd: 'vary-miss', stored: false });
    expect(await drained(unkeyable, unstored)).toBe('encoded for you');
    expect(read.cache.keys()).toHaveLength(4);
  });

  it('RFC 9111 §4.1: Vary: * is never stored (it can never match)', async () => {
    const read = fakeRead({ object: textObject('x', { vary: '*' }), selecting: new Headers() });
    const resolved = await resolveObject(read, 0);
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: false });
    await drained(read, resolved);
    expect(read.cache.keys()).toEqual([]);
  });

  it('without selecting (an S3 origin), every client gets the one stored response', async () => {
    const read = fakeRead({ object: varying() });
    const objectKey = read.key;
    await drained(read, await resolveObject(read, 0));
    expect(read.key).toBe(objectKey);
    expect(read.cache.keys()).toEqual([objectKey]);
    const hit = await resolveObject(sameTier(read), 0);
    expect(hit.report.hit).toBe(true);
    await drained(read, hit);
  });

  it('a purged index is a miss for every variant', async () => {
    const read = fakeRead({ object: varying(), selecting: new Headers({ 'accept-language': 'fr' }) });
    const objectKey = read.key;
    await drained(read, await resolveObject(read, 0));
    const after = sameTier(read, {
      key: objectKey,
      selecting: new Headers({ 'accept-language': 'fr' }),
      purged: () => true,
    });
    read.upstream.next(new Disconnected('origin-unreachable', 'no route'));
    const resolved = asWhole(await resolveObject(after, 0));
    expect(resolved.status).toBe(502);
    await drained(after, resolved);
    expect(read.cache.count('delete', objectKey)).toBe(1);
    expect(read.cache.entries.has(objectKey)).toBe(false);
  });
});

describe('resolveObject: collapsed requests', () => {
  it('concurrent misses share one upstream fetch: the others wait and read what it stored', async () => {
    const read = fakeRead({ object: textObject('fetched once') });
    const others = [sameTier(read), sameTier(read)];
    read.upstream.hold();
    const leading = resolveObject(read, 0);
    const waiting = others.map((other) => resolveObject(other, 0));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(read.upstream.calls).toHaveLength(1);
    read.upstream.release();
    expect(await drained(read, await leading)).toBe('fetched once');
    for (const [i, pending] of waiting.entries()) {
      const resolved = await pending;
      expect(resolved.report).toEqual({ fwd: 'uri-miss', collapsed: true, ttl: 3600 });
      expect(await drained(others[i]!, resolved)).toBe('fetched once');
    }
    expect(read.upstream.calls).toHaveLength(1);
    expect(isFilling(read.key)).toBe(false);
  });

  it('a stale entry being revalidated by one request: another waits for the result', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60' }) });
    await drained(read, await resolveObject(read, 0));
    read.clock.advance(61);
    const first = sameTier(read);
    const second = sameTier(read);
    read.upstream.hold();
    const leading = resolveObject(first, 0);
    const waiting = resolveObject(second, 0);
    await new Promise((resolve) => setTimeout(resolve, 10));
    read.upstream.release();
    const led = await leading;
    expect(led.report).toMatchObject({ fwd: 'stale', fwdStatus: 304 });
    await drained(first, led);
    const waited = await waiting;
    expect(waited.report).toEqual({ fwd: 'stale', collapsed: true, ttl: 60 });
    await drained(second, waited);
    expect(read.upstream.calls).toHaveLength(2);
  });
});
