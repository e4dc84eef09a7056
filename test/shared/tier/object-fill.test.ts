// fill (shared/tier/object-fill.ts) over fake ports: one ask of the next hop, what it stores
// (and leaves out), how a 304 refreshes what is held, and how an answer purged since is refused.

import { describe, expect, it } from 'vitest';
import { ORIGIN_AT_HEADER } from '../../../shared/hop/hop-fields.ts';
import { BadGateway, Disconnected, NotFound } from '../../../shared/http/errors.ts';
import { formatHttpDate } from '../../../shared/http/http-date.ts';
import type { PurgeCandidate } from '../../../shared/purge/purge-rules.ts';
import { readManifest } from '../../../shared/slices/object-meta.ts';
import { claim, claimOrWait } from '../../../shared/tier/collapse.ts';
import { fill } from '../../../shared/tier/object-fill.ts';
import { resolveObject } from '../../../shared/tier/object-read.ts';
import { lookup } from '../../../shared/tier/tier-cache.ts';
import { until } from '../../integration/fixture.ts';
import {
  asSliced,
  asWhole,
  drained,
  EPOCH,
  fakeRead,
  patterned,
  sameTier,
  text,
  textObject,
  wholeAnswer,
} from './fakes.ts';

describe('fill: what it asks', () => {
  it('asks for exactly the slice given, unconditionally, on the client’s signal only until the head arrives (then the fill is the cache’s)', async () => {
    const client = new AbortController();
    const read = fakeRead({ signal: client.signal });
    const { resolved } = await fill(read, 4, read.now(), 'uri-miss');
    const [call] = read.upstream.sliceCalls;
    expect({ ...call, signal: undefined }).toEqual({
      method: 'slices',
      span: { first: 4, last: 4 },
      pinned: undefined,
      validators: undefined,
      from: undefined,
      signal: undefined,
    });
    // The head is in: the client leaving now cancels nothing the next hop sends.
    client.abort(new Error('the client went away'));
    expect(call?.signal?.aborted).toBe(false);
    await drained(read, resolved);
  });

  it('cancels the request when its client leaves before the head arrives, nobody else waiting: the next tier hears it', async () => {
    const client = new AbortController();
    const read = fakeRead({ signal: client.signal });
    read.upstream.hold();
    const filling = fill(read, 0, read.now(), 'uri-miss');
    await until(() => read.upstream.sliceCalls.length > 0);
    client.abort(new Error('the client went away'));
    expect(read.upstream.sliceCalls[0]?.signal?.aborted).toBe(true);
    read.upstream.release();
    await drained(read, (await filling).resolved);
  });

  it('keeps the request when its client leaves before the head while another request waits for the same fill', async () => {
    const client = new AbortController();
    const read = fakeRead({ signal: client.signal });
    const leader = claim(read.key);
    const waiter = claimOrWait(read.key, async () => undefined, 1000);
    read.upstream.hold();
    const filling = fill(read, 0, read.now(), 'uri-miss');
    await until(() => read.upstream.sliceCalls.length > 0);
    client.abort(new Error('the client went away'));
    expect(read.upstream.sliceCalls[0]?.signal?.aborted).toBe(false);
    read.upstream.release();
    await drained(read, (await filling).resolved);
    leader.release();
    const waited = await waiter;
    if ('claim' in waited) waited.claim.release();
  });

  it('RFC 9111 §4.3.1: with a held entry, asks conditionally with its ETag and Last-Modified', async () => {
    const read = fakeRead();
    await drained(read, await resolveObject(read, 0));
    const held = await lookup(read.cache, read.key);
    const again = sameTier(read);
    const { resolved } = await fill(again, 0, again.now(), 'stale', held);
    expect(read.upstream.calls[1]).toEqual({
      method: 'slices',
      span: { first: 0, last: 0 },
      pinned: undefined,
      validators: { etag: '"v1"', lastModified: 'Mon, 02 Mar 2026 09:00:00 GMT' },
      from: undefined,
      signal: undefined,
    });
    expect(resolved.report).toEqual({ fwd: 'stale', fwdStatus: 304, stored: true });
    await drained(again, resolved);
  });

  it('a 304 to an unconditional request is a 502: the next hop answered what was not asked', async () => {
    const read = fakeRead();
    read.upstream.next({ kind: 'not-modified', response: new Response(null, { status: 304 }) });
    const failed = fill(read, 0, read.now(), 'uri-miss');
    await expect(failed).rejects.toBeInstanceOf(BadGateway);
    await expect(failed).rejects.toMatchObject({ status: 502 });
  });
});

describe('fill: timing', () => {
  it('RFC 9110 §6.6.1: an answer without Date is given the time it was received', async () => {
    const read = fakeRead();
    read.upstream.date = undefined;
    read.clock.advance(42);
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    const whole = asWhole(resolved);
    expect(whole.headers.get('date')).toBe(formatHttpDate(EPOCH + 42_000));
    await drained(read, whole);
    expect(read.cache.unpacked(read.key)?.headers.get('date')).toBe(formatHttpDate(EPOCH + 42_000));
  });

  it('RFC 9111 §4.2.3: the apparent age (a Date in the past) counts in the initial age', async () => {
    const read = fakeRead({ object: textObject('x', { date: formatHttpDate(EPOCH - 30_000) }) });
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    expect(resolved.age).toBe(30);
    await drained(read, resolved);
    expect(read.cache.unpacked(read.key)?.meta.initialAge).toBe(30);
  });

  it('RFC 9111 §4.2.3: so does the time the request took (response_delay), added to the Age sent', async () => {
    const read = fakeRead({ object: textObject('x', { age: '5' }) });
    const started = read.now();
    read.upstream.next(async (call) => {
      read.clock.advance(2);
      return read.upstream.answer(call);
    });
    const { resolved } = await fill(read, 0, started, 'uri-miss');
    expect(resolved.age).toBe(7);
    await drained(read, resolved);
  });

  it('takes when the bytes came from the origin from the next tier, never later than now, and drops the field', async () => {
    const earlier = fakeRead({ object: textObject('x', { [ORIGIN_AT_HEADER]: String(EPOCH - 5000) }) });
    const { resolved } = await fill(earlier, 0, earlier.now(), 'uri-miss');
    const whole = asWhole(resolved);
    expect(whole.originAt).toBe(EPOCH - 5000);
    expect(whole.headers.has(ORIGIN_AT_HEADER)).toBe(false);
    await drained(earlier, whole);
    expect(earlier.cache.unpacked(earlier.key)?.meta).toMatchObject({ storedAt: EPOCH, originAt: EPOCH - 5000 });
    expect(earlier.cache.unpacked(earlier.key)?.headers.has(ORIGIN_AT_HEADER)).toBe(false);

    const later = fakeRead({ object: textObject('x', { [ORIGIN_AT_HEADER]: String(EPOCH + 60_000) }) });
    const clamped = await fill(later, 0, later.now(), 'uri-miss');
    expect(clamped.resolved.originAt).toBe(EPOCH);
    await drained(later, clamped.resolved);
  });
});

describe('fill: what is stored, and what is left out', () => {
  it('RFC 9111 §5.2.2.7: a qualified private keeps the fields it names out of the stored copy, not out of this answer', async () => {
    const read = fakeRead({
      object: textObject('x', { 'cache-control': 'max-age=60, private="x-user"', 'x-user': 'alice' }),
    });
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    expect(asWhole(resolved).headers.get('x-user')).toBe('alice');
    expect(resolved.report.stored).toBe(true);
    await drained(read, resolved);
    const stored = read.cache.unpacked(read.key);
    expect(stored?.headers.has('x-user')).toBe(false);
    expect(stored?.headers.get('etag')).toBe('"v1"');
  });

  it('RFC 9111 §5.2.2.4: so does a qualified no-cache, in a manifest too', async () => {
    const object = {
      body: patterned(9000),
      sliceSize: 4096,
      headers: { etag: '"s1"', 'cache-control': 'max-age=60, no-cache="x-session"', 'x-session': 's1' },
    };
    const read = fakeRead({ object });
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    const sliced = asSliced(resolved);
    expect(sliced.meta.headers.get('x-session')).toBe('s1');
    await drained(read, sliced);
    const manifest = readManifest(read.cache.unpacked(read.key)!.headers);
    expect(manifest?.etag).toBe('"s1"');
    expect(manifest?.headers.has('x-session')).toBe(false);
  });

  it('RFC 9111 §5.2.2.4: an unqualified no-cache with a validator is stored, and revalidated before every use', async () => {
    const read = fakeRead({ object: textObject('x', { 'cache-control': 'no-cache' }) });
    await drained(read, await resolveObject(read, 0));
    expect(read.cache.unpacked(read.key)?.meta).toMatchObject({ lifetime: 0, mustRevalidate: true });
    const next = await resolveObject(sameTier(read), 0);
    expect(read.upstream.sliceCalls[1]?.validators).toEqual({
      etag: '"v1"',
      lastModified: 'Mon, 02 Mar 2026 09:00:00 GMT',
    });
    expect(next.report).toMatchObject({ fwd: 'stale', fwdStatus: 304 });
    await drained(read, next);
  });

  it('RFC 9111 §5.2.2.4: an unqualified no-cache without a validator is not stored', async () => {
    const read = fakeRead({ object: { body: new Uint8Array(3), headers: { 'cache-control': 'no-cache' } } });
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    expect(resolved.report.stored).toBe(false);
    await drained(read, resolved);
    expect(read.cache.keys()).toEqual([]);
  });

  it('RFC 9111 §3.5: an answer to a request with Authorization is stored only when public, must-revalidate or s-maxage allow it', async () => {
    const selecting = new Headers({ authorization: 'Bearer token' });
    const plain = fakeRead({ object: textObject('x', { 'cache-control': 'max-age=60' }), selecting });
    const refused = await fill(plain, 0, plain.now(), 'uri-miss');
    expect(refused.resolved.report.stored).toBe(false);
    await drained(plain, refused.resolved);
    expect(plain.cache.keys()).toEqual([]);

    const shared = fakeRead({ object: textObject('x', { 'cache-control': 'public, max-age=60' }), selecting });
    const allowed = await fill(shared, 0, shared.now(), 'uri-miss');
    expect(allowed.resolved.report.stored).toBe(true);
    await drained(shared, allowed.resolved);
    expect(shared.cache.keys()).toEqual([shared.key]);
  });

  it('a Set-Cookie answer is never stored by a shared cache', async () => {
    const read = fakeRead({
      object: textObject('x', { 'cache-control': 'public, max-age=60', 'set-cookie': 'session=abc' }),
    });
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    expect(resolved.report.stored).toBe(false);
    expect(asWhole(resolved).headers.get('set-cookie')).toBe('session=abc');
    await drained(read, resolved);
    expect(read.cache.keys()).toEqual([]);
  });

  it('RFC 9213 §2.2: a targeted field (CDN-Cache-Control) decides freshness over Cache-Control', async () => {
    const read = fakeRead({
      object: textObject('x', { 'cache-control': 'max-age=60', 'cdn-cache-control': 'max-age=600' }),
    });
    await drained(read, (await fill(read, 0, read.now(), 'uri-miss')).resolved);
    expect(read.cache.unpacked(read.key)?.meta.lifetime).toBe(600);
  });

  it('RFC 9110 §15.3.5: a 204 has no content, and is stored like any other answer', async () => {
    const read = fakeRead({
      object: { body: new Uint8Array(0), status: 204, headers: { 'cache-control': 'max-age=60' } },
    });
    const { resolved, stored } = await fill(read, 0, read.now(), 'uri-miss');
    const whole = asWhole(resolved);
    expect(whole).toMatchObject({ status: 204, body: null, report: { fwd: 'uri-miss', stored: true, fwdStatus: 204 } });
    await stored;
    await read.settle();
    const hit = asWhole(await resolveObject(sameTier(read), 0));
    expect(hit).toMatchObject({ status: 204, report: { hit: true, ttl: 60 } });
    expect(await text(hit.body)).toBe('');
  });

  it('a span answer that may not be stored is still answered, its slice in hand, no manifest kept', async () => {
    const object = { body: patterned(9000), sliceSize: 4096, headers: { etag: '"s1"', 'cache-control': 'no-store' } };
    const read = fakeRead({ object });
    const { resolved } = await fill(read, 2, read.now(), 'uri-miss');
    const sliced = asSliced(resolved);
    expect(sliced).toMatchObject({ entry: undefined, inRange: true, report: { fwd: 'uri-miss', stored: false } });
    expect(new Uint8Array(await new Response(sliced.prefetched.get(2)).arrayBuffer())).toEqual(object.body.slice(8192));
    await drained(read, sliced);
    expect(read.cache.keys()).toEqual([]);
  });
});

describe('fill: errors of the next hop', () => {
  it("a 404 it throws is stored briefly (the negative TTL), its status reported as the next hop's", async () => {
    const read = fakeRead({ negativeTtl: 30 });
    read.upstream.next(new NotFound('no such object').from(404));
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    expect(resolved).toMatchObject({
      kind: 'whole',
      status: 404,
      report: { fwd: 'uri-miss', stored: true, fwdStatus: 404 },
    });
    await drained(read, resolved);
    expect(read.cache.unpacked(read.key)?.meta.lifetime).toBe(30);
  });

  it('RFC 9110 §6.6.1: a 404 it throws is given a Date (when it came), in the answer, the stored copy and later hits', async () => {
    const read = fakeRead();
    read.clock.advance(42);
    read.upstream.next(new NotFound('no such object').from(404));
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    const whole = asWhole(resolved);
    expect(whole.status).toBe(404);
    expect(whole.headers.get('date')).toBe(formatHttpDate(EPOCH + 42_000));
    await drained(read, whole);
    expect(read.cache.unpacked(read.key)?.headers.get('date')).toBe(formatHttpDate(EPOCH + 42_000));
    read.clock.advance(10);
    const hit = asWhole(await resolveObject(sameTier(read), 0));
    expect(hit).toMatchObject({ status: 404, age: 10, report: { hit: true } });
    expect(hit.headers.get('date')).toBe(formatHttpDate(EPOCH + 42_000));
    await drained(read, hit);
  });

  it('RFC 9211 §2.8: a disconnection it throws is answered as ours (no fwd-status), its detail named, nothing stored', async () => {
    const read = fakeRead();
    read.upstream.next(new Disconnected('shield-unreachable', 'the shield tier could not be reached'));
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    expect(resolved).toMatchObject({ kind: 'whole', status: 502 });
    expect(resolved.report).toEqual({ fwd: 'uri-miss', stored: false, detail: 'shield-unreachable' });
    await drained(read, resolved);
    expect(read.cache.keys()).toEqual([]);
  });

  it('an error that is no HttpError is thrown as it is', async () => {
    const read = fakeRead();
    const bug = new TypeError('a bug');
    read.upstream.next(bug);
    await expect(fill(read, 0, read.now(), 'uri-miss')).rejects.toBe(bug);
  });
});

describe('fill: an answer purged since it came from the origin', () => {
  const purgedAt = EPOCH - 5000;
  const stale = () =>
    wholeAnswer(
      200,
      { etag: '"old"', 'cache-control': 'max-age=60', 'cache-tag': 'news', [ORIGIN_AT_HEADER]: String(EPOCH - 10_000) },
      'old bytes',
    );

  it('is not taken: asked once more, and a fresh answer is stored', async () => {
    const seen: PurgeCandidate[] = [];
    const purged = (entry: PurgeCandidate) => {
      seen.push(entry);
      return (entry.meta.originAt ?? entry.meta.storedAt) <= purgedAt;
    };
    const read = fakeRead({ object: textObject('new bytes'), purged });
    read.upstream.next(stale());
    const { resolved } = await fill(read, 0, read.now(), 'uri-miss');
    expect(read.upstream.calls).toHaveLength(2);
    // The purge is judged by when the bytes came from the origin, and by the answer's headers (its tags).
    expect(seen[0]?.meta).toEqual({ storedAt: EPOCH, originAt: EPOCH - 10_000 });
    expect(seen[0]?.headers.get('cache-tag')).toBe('news');
    expect(await drained(read, resolved)).toBe('new bytes');
    expect(read.cache.unpacked(read.key)?.headers.get('etag')).toBe('"v1"');
  });

  it('soft-purged: not taken as fresh either, asked once more; still soft-purged then, taken and stored with its old origin time', async () => {
    const softPurgedAt = (entry: PurgeCandidate) =>
      (entry.meta.originAt ?? entry.meta.storedAt) <= purgedAt ? purgedAt : undefined;
    const renewed = fakeRead({ object: textObject('new bytes'), softPurgedAt });
    renewed.upstream.next(stale());
    const fresh = await fill(renewed, 0, renewed.now(), 'uri-miss');
    expect(renewed.upstream.calls).toHaveLength(2);
    expect(await drained(renewed, fresh.resolved)).toBe('new bytes');

    const read = fakeRead({ softPurgedAt });
    read.upstream.next(stale(), stale());
    const { resolved, stored } = await fill(read, 0, read.now(), 'uri-miss');
    expect(read.upstream.calls).toHaveLength(2);
    expect(await drained(read, resolved)).toBe('old bytes');
    await stored;
    // Still soft-purged where it is stored: the next lookup revalidates it.
    expect(read.cache.unpacked(read.key)?.meta.originAt).toBe(EPOCH - 10_000);
  });

  it('still purged the second time: a 502, nothing stored', async () => {
    const read = fakeRead({ purged: (entry) => (entry.meta.originAt ?? entry.meta.storedAt) <= purgedAt });
    read.upstream.next(stale(), stale());
    await expect(fill(read, 0, read.now(), 'uri-miss')).rejects.toBeInstanceOf(BadGateway);
    expect(read.upstream.calls).toHaveLength(2);
    expect(read.cache.count('put')).toBe(0);
  });
});
