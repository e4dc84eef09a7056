// How a fill writes what it may store into the tier's cache: a body while it streams to the
// client (counted, and written again with its length when the origin sent none), a manifest,
// the Vary index and the variant's place (RFC 9111 §4.1), and the fields a stored copy leaves
// out (§5.2.2.4, §5.2.2.7).

import { indexHeaders, variantKey, varyFieldNames } from '../http/vary.ts';
import { manifestHeaders, type ObjectMeta } from '../slices/object-meta.ts';
import type { EntryMeta } from '../store/stored-entry.ts';
import { bodySource } from '../streams/body-source.ts';
import { startFill } from './fill.ts';
import type { ObjectRead } from './ports.ts';
import { lookup, newFill, openPut, type Storable, store } from './tier-cache.ts';

/**
 * Stores `body` at the object's key while the client streams it too (fill.ts); answers the
 * client's share. A client that falls behind reads the rest back from this very fill once
 * stored. The client's body carries the length on the wire: one that breaks is a broken
 * transfer (workerd would end a chunked one as if it were complete).
 */
export function storeWhileServing(
  read: ObjectRead,
  entry: Omit<Storable, 'body' | 'fill'>,
  body: ReadableStream,
): { body: ReadableStream<Uint8Array>; stored: Promise<boolean> } {
  const fill = newFill();
  const { key } = read;
  let stored: Promise<boolean> = Promise.resolve(false);
  const put = openPut(read.cache, key, { ...entry, fill });
  let counted = 0;
  const filling = startFill(bodySource(body as ReadableStream<Uint8Array>, { length: entry.length }), {
    length: entry.length,
    store:
      entry.length !== undefined
        ? put
        : {
            ...put,
            write: (bytes) => {
              counted += bytes.byteLength;
              return put.write(bytes);
            },
          },
    resume: async () => {
      const copy = (await stored) ? await lookup(read.cache, key) : undefined;
      if (copy?.fill !== fill || copy.body === null) {
        await copy?.body?.cancel();
        throw new Error('the rest of this response is no longer stored');
      }
      return { body: copy.body as ReadableStream<Uint8Array>, from: 0 };
    },
  });
  // A body the origin sent without a length is stored again once counted, with that length,
  // so that its hits answer ranges (RFC 9110 §14) like any other; the same fill, the same bytes.
  stored =
    entry.length === undefined
      ? filling.stored.then((exact) => exact && withCountedLength(read.cache, key, entry, fill, counted))
      : filling.stored;
  read.waitUntil(stored);
  return { body: filling.client, stored };
}

async function withCountedLength(
  cache: ObjectRead['cache'],
  key: string,
  entry: Omit<Storable, 'body' | 'fill'>,
  fill: number,
  length: number,
): Promise<boolean> {
  const copy = await lookup(cache, key);
  if (copy?.fill !== fill || copy.body === null) {
    await copy?.body?.cancel();
    return false;
  }
  const headers = new Headers(entry.headers);
  headers.set('content-length', String(length));
  return store(cache, key, { ...entry, headers, body: copy.body as ReadableStream, length, fill });
}

/**
 * Where a response about to be stored goes (RFC 9111 §4.1, vary.ts): when it varies and the
 * tier keys by the request (`selecting`), under its variant's key, with the object's index
 * naming the fields (the returned promise stores it); otherwise under the object's own key.
 * Undefined when the request's selecting values are too long to key by: nothing is stored.
 */
export function placeVariant(
  read: ObjectRead,
  headers: Headers,
  meta: EntryMeta,
  keep: number,
): Promise<unknown> | undefined {
  if (read.selecting === undefined) return Promise.resolve();
  const objectKey = read.objectKey ?? read.key;
  const fields = varyFieldNames(headers.get('vary'));
  if (fields.length === 0) {
    read.key = objectKey;
    return Promise.resolve();
  }
  const key = variantKey(objectKey, fields, read.selecting);
  if (key === undefined) return undefined;
  read.objectKey = objectKey;
  read.key = key;
  const stored = store(read.cache, objectKey, {
    status: 200,
    headers: indexHeaders(fields),
    body: emptyBody(),
    meta,
    retention: keep,
    length: 0,
  });
  read.waitUntil(stored);
  return stored;
}

export function storeManifest(read: ObjectRead, meta: ObjectMeta, entry: EntryMeta, keep: number): Promise<unknown> {
  const stored = store(read.cache, read.key, {
    status: 200,
    headers: manifestHeaders(meta),
    body: emptyBody(),
    meta: entry,
    retention: keep,
    length: 0,
  });
  read.waitUntil(stored);
  return stored;
}

export function emptyBody(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
}

/** RFC 9111 §5.2.2.4, §5.2.2.7: the fields a qualified no-cache or private keeps out of the stored copy. */
export function withoutFields(headers: Headers, fields: readonly string[]): Headers {
  if (fields.length === 0) return headers;
  const kept = new Headers(headers);
  for (const field of fields) kept.delete(field);
  return kept;
}
