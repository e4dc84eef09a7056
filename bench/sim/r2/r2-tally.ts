// The R2 tier's operations in a sim run (`npm run sim --r2-tier`), counted where R2 would bill them: its bucket binding
// wrapped in the shield's process (small-cache-shield.ts), each call counted by its class, and what the bucket holds
// at the end read back through the same endpoint. The harness wraps the worker: the shield sees a bucket.

import { R2_PREFIX } from '../../../shield/r2/r2-cache.ts';

/** The part of an R2 bucket binding the tier calls (shield/r2/r2-cache.ts R2Store), loosely typed: any binding. */
interface Bucket {
  get(key: string): Promise<unknown>;
  head(key: string): Promise<unknown>;
  put(key: string, value: unknown, options?: unknown): Promise<unknown>;
  delete(keys: string | string[]): Promise<void>;
  list(options?: unknown): Promise<{ objects: { size: number }[]; truncated: boolean; cursor?: string }>;
}

/** What the tier did to its bucket over a run, and what the bucket holds at its end. */
export interface R2Tally {
  /** Class B. */
  gets: number;
  /** Bytes read from the bodies the gets found: what R2 sent in the origin's place. */
  readBytes: number;
  heads: number;
  /** Class A. */
  puts: number;
  lists: number;
  /** Free. */
  deletes: number;
  /** Objects and bytes the bucket holds at the end. */
  objects: number;
  bytes: number;
}

/** The harness-only path of the shield's process that answers the tally (never a client's: it has no route). */
export const R2_TALLY_PATH = '/__sim/r2-tally';

const counts = { gets: 0, readBytes: 0, heads: 0, puts: 0, lists: 0, deletes: 0 };
const wrapped = new WeakMap<object, Bucket>();

/** `bucket`, each call counted (one wrapper per binding: an isolate keeps its env). */
export function countedBucket(bucket: Bucket): Bucket {
  const known = wrapped.get(bucket);
  if (known !== undefined) return known;
  const counted: Bucket = {
    async get(key) {
      counts.gets++;
      return readCounted(await bucket.get(key));
    },
    head(key) {
      counts.heads++;
      return bucket.head(key);
    },
    put(key, value, options) {
      counts.puts++;
      return bucket.put(key, value, options);
    },
    delete(keys) {
      counts.deletes++;
      return bucket.delete(keys);
    },
    list(options) {
      counts.lists++;
      return bucket.list(options);
    },
  };
  wrapped.set(bucket, counted);
  return counted;
}

/**
 * What a get found, its body's bytes counted as they are read (a lookup that wants only the headers, a read cut short,
 * reads less than the object): the fields the tier reads of it (shield/r2/r2-cache.ts R2Body), its body counted.
 */
function readCounted(found: unknown): unknown {
  if (typeof found !== 'object' || found === null || !('body' in found) || !(found.body instanceof ReadableStream))
    return found;
  const { key, size, customMetadata } = found as { key?: unknown; size?: unknown; customMetadata?: unknown };
  const body = found.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        counts.readBytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }),
  );
  return { key, size, customMetadata, body };
}

/** The tally so far, and the tier's objects in `bucket` (the binding itself: the harness's listing is not the tier's). */
export async function tally(bucket: Bucket): Promise<R2Tally> {
  let objects = 0;
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: R2_PREFIX, limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    objects += page.objects.length;
    bytes += page.objects.reduce((sum, object) => sum + object.size, 0);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return { ...counts, objects, bytes };
}
