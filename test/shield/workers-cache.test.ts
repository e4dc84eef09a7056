// What the shield tells Workers Cache (shield/workers-cache-answer.ts) and what its gateway puts
// back and hands over (shield/workers-cache-gateway.ts), as plain functions of headers and time.

import { describe, expect, it } from 'vitest';
import { sliceRequestPath } from '../../shared/hop/slice-protocol.ts';
import { HttpError } from '../../shared/http/errors.ts';
import { RequestMeter } from '../../shared/observe/request-meter.ts';
import { folderTag, urlTag } from '../../shared/purge/workers-cache-purge.ts';
import { type EntryMeta, MAX_RETENTION_S } from '../../shared/store/stored-entry.ts';
import {
  AGE_HEADER,
  AGED_AT_HEADER,
  markForWorkersCache,
  OBJECT_TAGS_HEADER,
  unmarkedNotKept,
  WORKERS_CACHE_FIELD,
} from '../../shield/workers-cache-answer.ts';
import { keptByWorkersCache, restored, viaWorkersCache, workersCacheKey } from '../../shield/workers-cache-gateway.ts';

const NOW = 1_800_000_000_000;
/** Stored 100 s ago, fresh for 600 s: 500 s left. */
const entry = (lifetime = 600): EntryMeta => ({
  storedAt: NOW - 100_000,
  initialAge: 0,
  lifetime,
  whileRevalidate: 0,
  ifError: 0,
  mustRevalidate: false,
});
const marked = (
  headers: Record<string, string>,
  facts: { status?: number; entry?: EntryMeta | undefined } = {},
): Headers => {
  const h = new Headers(headers);
  markForWorkersCache(h, {
    status: facts.status ?? 200,
    entry: 'entry' in facts ? facts.entry : entry(),
    now: NOW,
    path: '/a/b.mp4',
  });
  return h;
};

describe('markForWorkersCache', () => {
  it('lets Workers Cache keep a fresh stored 200 for the freshness it has left, never stale on an error, tagged for every purge that could name it', () => {
    const h = marked({ 'cache-tag': 'Album-7', age: '100' });
    expect(h.get(WORKERS_CACHE_FIELD)).toBe('max-age=500, stale-if-error=0');
    expect(h.get('cache-tag')).toBe(['album-7', urlTag('/a/b.mp4'), folderTag('/'), folderTag('/a/')].join(','));
    // What Cloudflare consumes, and the Age it may not count, under the shield's own names.
    expect(h.get(OBJECT_TAGS_HEADER)).toBe('Album-7');
    expect([h.get('age'), h.get(AGE_HEADER), h.get(AGED_AT_HEADER)]).toEqual([null, '100', String(NOW)]);
  });

  it('never asks Workers Cache to keep an answer longer than any tier keeps an entry', () => {
    expect(marked({}, { entry: entry(365 * 86_400) }).get(WORKERS_CACHE_FIELD)).toBe(
      `max-age=${MAX_RETENTION_S}, stale-if-error=0`,
    );
  });

  it('says no-store for what the shield does not store, what is stale here, what varies, and any status but 200 and 304', () => {
    expect(marked({}, { entry: undefined }).get(WORKERS_CACHE_FIELD)).toBe('no-store');
    expect(marked({}, { entry: entry(50) }).get(WORKERS_CACHE_FIELD)).toBe('no-store');
    expect(marked({ vary: 'accept-encoding' }).get(WORKERS_CACHE_FIELD)).toBe('no-store');
    for (const status of [206, 404, 412, 416, 503])
      expect(marked({}, { status }).get(WORKERS_CACHE_FIELD), String(status)).toBe('no-store');
    expect(marked({}, { status: 304 }).get(WORKERS_CACHE_FIELD)).toBe('max-age=500, stale-if-error=0');
  });

  it('says no-store for an answer whose object tag Cloudflare would drop, and keeps that tag for the edge', () => {
    const h = marked({ 'cache-tag': 'café' });
    expect(h.get(WORKERS_CACHE_FIELD)).toBe('no-store');
    expect(h.get(OBJECT_TAGS_HEADER)).toBe('café');
  });

  it('marks an answer the shield did not mark (an error) no-store', () => {
    const answer = unmarkedNotKept(new Response('404 not found\n', { status: 404, headers: { 'cache-tag': 'x' } }));
    expect(answer.headers.get(WORKERS_CACHE_FIELD)).toBe('no-store');
    expect(answer.headers.get(OBJECT_TAGS_HEADER)).toBe('x');
  });
});

describe('the gateway', () => {
  it("puts back the object's tags and an Age counting the time held, and removes Cloudflare's fields and its own", () => {
    const given = marked({ 'cache-tag': 'Album-7', age: '100', 'x-keep': '1' });
    given.set('cf-cache-status', 'HIT');
    const h = restored(given, NOW + 30_000);
    expect(h.get('cache-tag')).toBe('Album-7');
    expect(h.get('age')).toBe('130');
    expect(h.get('x-keep')).toBe('1');
    for (const name of [WORKERS_CACHE_FIELD, 'cf-cache-status', OBJECT_TAGS_HEADER, AGE_HEADER, AGED_AT_HEADER])
      expect(h.has(name), name).toBe(false);
    // An object without tags has none after.
    expect(restored(marked({}), NOW).has('cache-tag')).toBe(false);
  });

  it('hands Workers Cache only a GET of a span from its start, with no revalidation, purge watermark or conditions', () => {
    const slice = { request: { span: { first: 1, last: 1 }, sliceSize: 1024, etag: '"e"' } };
    const get = (headers: Record<string, string> = {}, method = 'GET') =>
      new Request('https://shield.internal/x', { method, headers });
    expect(keptByWorkersCache(get(), slice)).toBe(true);
    expect(keptByWorkersCache(get(), { request: { ...slice.request, etag: undefined } })).toBe(true);
    expect(keptByWorkersCache(get(), undefined)).toBe(false);
    expect(keptByWorkersCache(get({}, 'HEAD'), slice)).toBe(false);
    expect(keptByWorkersCache(get(), { request: { ...slice.request, warm: true } })).toBe(false);
    expect(keptByWorkersCache(get(), { request: { ...slice.request, from: 10 } })).toBe(false);
    for (const name of [
      'x-tiercache-revalidate',
      'x-tiercache-purged-at',
      'x-tiercache-soft-purged-at',
      'if-none-match',
      'if-modified-since',
      'range',
    ])
      expect(keptByWorkersCache(get({ [name]: '1' }), slice), name).toBe(false);
  });

  it('keys an answer by span, slicing, version and the object at its origin, so two buckets never share one', () => {
    const slice = { span: { first: 2, last: 2 }, sliceSize: 1024, etag: '"e"' };
    expect(workersCacheKey(slice, 'https://gw.example/bucket-a/x.bin')).toBe(
      sliceRequestPath(slice, '/https://gw.example/bucket-a/x.bin'),
    );
    expect(workersCacheKey(slice, 'https://gw.example/bucket-a/x.bin')).not.toBe(
      workersCacheKey(slice, 'https://gw.example/bucket-b/x.bin'),
    );
    expect(workersCacheKey(slice, 'https://gw.example/b/x.bin')).not.toBe(
      workersCacheKey({ ...slice, etag: '"f"' }, 'https://gw.example/b/x.bin'),
    );
  });

  it("reports a Workers Cache hit as the shield's hit and makes its record; a miss is recorded by the slices entrypoint that ran", async () => {
    const answering = (status: string) => ({
      fetch: async () =>
        new Response('bytes', {
          headers: {
            'cf-cache-status': status,
            'cache-status': 'tiercache-shield; fwd=uri-miss; stored',
            'server-timing': 'origin;dur=80;desc="1 slice", shield-slice;dur=81, shield;dur=82',
            [OBJECT_TAGS_HEADER]: '',
          },
        }),
    });
    const request = new Request('https://shield.internal/x');
    const hitMeter = new RequestMeter(NOW, () => undefined);
    const hit = await viaWorkersCache(request, answering('HIT'), 'k', hitMeter, NOW);
    expect(hit.headers.get('cache-status')).toBe(
      'tiercache-shield; hit; detail=workers-cache; tiercache-store=workers-cache',
    );
    // Its fill's metrics are not this request's: the shield's own time alone.
    expect(hit.headers.get('server-timing')).toMatch(/^shield;dur=[\d.]+$/);
    expect(hitMeter.internal).toBe(false);
    const missMeter = new RequestMeter(NOW, () => undefined);
    const miss = await viaWorkersCache(request, answering('MISS'), 'k', missMeter, NOW);
    expect(miss.headers.get('cache-status')).toBe('tiercache-shield; fwd=uri-miss; stored');
    expect(miss.headers.get('server-timing')).toBe('origin;dur=80;desc="1 slice", shield-slice;dur=81, shield;dur=82');
    expect(missMeter.internal).toBe(true);
    expect(await miss.text()).toBe('bytes');
  });

  it('answers 502, not a 500, when the slices entrypoint does not answer', async () => {
    const failing = { fetch: () => Promise.reject(new Error('gone')) };
    const error = await viaWorkersCache(
      new Request('https://shield.internal/x'),
      failing,
      'k',
      new RequestMeter(NOW, () => undefined),
      NOW,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(502);
  });
});
