// tier-cache.ts over the fake Cache API: the envelope a stored entry travels in, and that only
// a body exactly as long as it claims is ever served back.

import { describe, expect, it } from 'vitest';
import { LengthMismatch } from '../../../shared/http/errors.ts';
import type { EntryMeta } from '../../../shared/store/stored-entry.ts';
import { isUnsound, lookup, newFill, openPut, remove, store } from '../../../shared/tier/tier-cache.ts';
import { faultyStream, streamOf } from '../../streams.ts';
import { EPOCH, FakeTierCache, freshKey, patterned, text } from './fakes.ts';

const META: EntryMeta = {
  storedAt: EPOCH,
  initialAge: 3,
  lifetime: 600,
  whileRevalidate: 30,
  ifError: 300,
  mustRevalidate: false,
  originAt: EPOCH - 1000,
};

function entry(length: number | undefined, body: ReadableStream<Uint8Array>, status = 200) {
  return {
    status,
    headers: new Headers({
      'content-type': 'text/plain',
      'cache-control': 'max-age=600',
      date: 'Mon, 02 Mar 2026 10:00:00 GMT',
      etag: '"e1"',
    }),
    body,
    meta: META,
    retention: 4200,
    length,
  };
}

/** A Cache whose deletes arrive too early (the platform commits a failed put after them): they are lost. */
class LateCommitCache extends FakeTierCache {
  override async delete(request: Request): Promise<boolean> {
    this.ops.push({ op: 'delete', url: request.url });
    return false;
  }
}

describe('store and lookup', () => {
  it('keeps the origin’s headers and the tier’s timing under an envelope the platform cannot act on, and unpacks them', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    expect(await store(cache, key, { ...entry(5, streamOf(new TextEncoder().encode('abcde'))), fill: 7 })).toBe(true);
    // The platform sees a plain public max-age (the retention) and none of the origin's Date or Cache-Control.
    const platform = cache.unpacked(key)!.platformHeaders;
    expect(platform.get('cache-control')).toBe('public, max-age=4200');
    expect(platform.has('date')).toBe(false);
    const found = await lookup(cache, key);
    expect(found).toMatchObject({ status: 200, meta: META, length: 5, fill: 7 });
    expect(found?.headers.get('cache-control')).toBe('max-age=600');
    expect(found?.headers.get('date')).toBe('Mon, 02 Mar 2026 10:00:00 GMT');
    expect(found?.headers.has('x-tiercache-entry')).toBe(false);
    expect(await text(found!.body)).toBe('abcde');
  });

  it('RFC 9111 §3: any final status is stored; the platform is handed a 200 and the status travels in the envelope', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    expect(await store(cache, key, entry(4, streamOf(new TextEncoder().encode('gone')), 410))).toBe(true);
    expect(cache.entries.get(key)?.status).toBe(200);
    expect((await lookup(cache, key))?.status).toBe(410);
  });

  it('an entry stored with no bytes (an empty object) is looked up with an empty body, though the platform hands it back with none', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    expect(await store(cache, key, entry(0, streamOf(new Uint8Array(0))))).toBe(true);
    expect((await cache.match(new Request(key)))?.body).toBeNull();
    const found = await lookup(cache, key);
    expect(found).toMatchObject({ status: 200, length: 0 });
    expect(found?.body).not.toBeNull();
    expect(await text(found!.body)).toBe('');
  });

  it('a response that is not a tier envelope is no entry', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    await cache.put(new Request(key), new Response('raw', { headers: { 'cache-control': 'max-age=60' } }));
    expect(await lookup(cache, key)).toBeUndefined();
  });

  it('a body shorter than it claims is not kept', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    expect(await store(cache, key, entry(10, streamOf(patterned(6))))).toBe(false);
    expect(cache.keys()).toEqual([]);
    expect(await lookup(cache, key)).toBeUndefined();
  });

  it('a body that runs on past its length is stored as the bytes it claims, never more', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    expect(await store(cache, key, entry(4, streamOf(patterned(9))))).toBe(true);
    const found = await lookup(cache, key);
    expect(found?.length).toBe(4);
    expect(new Uint8Array(await new Response(found!.body).arrayBuffer())).toEqual(patterned(4));
  });

  it('a put written past its length fails, and keeps nothing', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    const put = openPut(cache, key, { status: 200, headers: new Headers(), meta: META, retention: 60, length: 4 });
    await put.write(patterned(3));
    await expect(put.write(patterned(2))).rejects.toBeInstanceOf(LengthMismatch);
    expect(await put.close()).toBe(false);
    expect(cache.keys()).toEqual([]);
  });

  it('a body that breaks is not kept, even by a platform that keeps what arrived', async () => {
    const cache = new FakeTierCache({ careless: true });
    const key = freshKey();
    expect(await store(cache, key, entry(100, faultyStream(patterned(100), 40, 'error')))).toBe(false);
    expect(cache.keys()).toEqual([]);
  });

  it('a put the platform refuses is reported as not stored', async () => {
    const cache = new FakeTierCache();
    cache.refusePuts = true;
    expect(await store(cache, freshKey(), entry(3, streamOf(patterned(3))))).toBe(false);
  });

  it('an entry whose platform length disagrees with the length it was counted at is gone, and deleted', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    expect(await store(cache, key, entry(8, streamOf(patterned(8))))).toBe(true);
    // The platform truncated it (it answers with the length it holds).
    const kept = cache.entries.get(key)!;
    kept.bytes = kept.bytes.slice(0, 5);
    expect(await lookup(cache, key)).toBeUndefined();
    expect(cache.count('delete', key)).toBe(1);
    expect(cache.keys()).toEqual([]);
  });

  it('an entry of a failed fill that the platform committed after its delete is never served', async () => {
    const cache = new LateCommitCache({ careless: true });
    const key = freshKey();
    // No length known (a chunked body): only its failure can tell the entry is wrong.
    const put = openPut(cache, key, {
      status: 200,
      headers: new Headers({ etag: '"e1"' }),
      meta: META,
      retention: 60,
      length: undefined,
    });
    await put.write(patterned(10));
    expect(await put.abort(new Error('the origin went away'))).toBe(false);
    expect(cache.keys()).toEqual([key]);
    expect(await lookup(cache, key)).toBeUndefined();
    expect(cache.count('delete', key)).toBe(2);
  });

  it('isUnsound: a known failed fill, or a declared length other than the counted one', () => {
    const fill = newFill();
    expect(isUnsound(fill, 5, '5')).toBe(false);
    expect(isUnsound(undefined, 5, '6')).toBe(true);
    expect(isUnsound(undefined, undefined, '6')).toBe(false);
    expect(isUnsound(undefined, 5, null)).toBe(false);
  });

  it('remove deletes the entry at the key', async () => {
    const cache = new FakeTierCache();
    const key = freshKey();
    await store(cache, key, entry(1, streamOf(patterned(1))));
    expect(await remove(cache, key)).toBe(true);
    expect(await lookup(cache, key)).toBeUndefined();
  });
});
