// How a fill writes what it may store: a body as it streams to the client (counted, and stored again with the length
// counted when the next hop sent none), a manifest, an entry without content (a Vary index, a 204), and the fields a
// stored copy leaves out (RFC 9111 §5.2.2.4, §5.2.2.7). object-fill.ts decides what is stored; this writes it.

import { manifestHeaders, type ObjectMeta } from '../slices/object-meta.ts';
import type { EntryMeta } from '../store/stored-entry.ts';
import { bodySource } from '../streams/body-source.ts';
import { emptyBody } from '../streams/empty-body.ts';
import { type FillOptions, startFill } from './fill.ts';
import type { ObjectRead } from './ports.ts';
import { lookup, newFill, openPut, type Storable, store } from './tier-cache.ts';

/**
 * Stores `body` at the object's key while the client streams it too (fill.ts); answers the
 * client's share. A client that falls behind reads the rest back from this very fill once
 * stored. The client's body carries the length on the wire: one that breaks is a broken
 * transfer (workerd would end a chunked one as if it were complete). `bounds`: those of a fill
 * from the next hop (nextHopBounds); none for a copy of this tier's own stored body.
 */
export function storeWhileServing(
  read: ObjectRead,
  entry: Omit<Storable, 'body' | 'fill'>,
  body: ReadableStream,
  bounds: Pick<FillOptions, 'limits' | 'clients'> = {},
): { body: ReadableStream<Uint8Array>; stored: Promise<boolean> } {
  const fill = newFill();
  const { key } = read;
  let stored: Promise<boolean> = Promise.resolve(false);
  const put = openPut(read.cache, key, { ...entry, fill });
  let counted = 0;
  const filling = startFill(bodySource(body as ReadableStream<Uint8Array>, { length: entry.length }), {
    ...bounds,
    length: entry.length,
    signal: read.signal,
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

export function storeManifest(read: ObjectRead, meta: ObjectMeta, entry: EntryMeta, keep: number): Promise<unknown> {
  return storeEmpty(read, read.key, 200, manifestHeaders(meta), entry, keep);
}

/** An entry without content (a manifest, a Vary index, a 204) stored at `key`, seen through to its end. */
export function storeEmpty(
  read: ObjectRead,
  key: string,
  status: number,
  headers: Headers,
  meta: EntryMeta,
  keep: number,
): Promise<boolean> {
  const stored = store(read.cache, key, { status, headers, body: emptyBody(), meta, retention: keep, length: 0 });
  read.waitUntil(stored);
  return stored;
}

/** RFC 9111 §5.2.2.4, §5.2.2.7: the fields a qualified no-cache or private keeps out of the stored copy. */
export function withoutFields(headers: Headers, fields: readonly string[]): Headers {
  if (fields.length === 0) return headers;
  const kept = new Headers(headers);
  for (const field of fields) kept.delete(field);
  return kept;
}
