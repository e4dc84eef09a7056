// A put whose body the runtime moves by itself (tier-cache.ts counts the puts JavaScript writes).

import { PLATFORM_STATUS, toStoredHeaders } from '../store/stored-entry.ts';
import { isNativeBody, pipesNatively } from '../streams/native-body.ts';
import { responseAsIs } from '../streams/response-as-is.ts';
import { newFill, rememberFailed, remove, type Storable, store, type TierCache } from './tier-cache.ts';

type Fixed = new (length: number) => TransformStream<Uint8Array, Uint8Array>;

/**
 * Stores `entry` with its body moved by the runtime (no JavaScript per chunk: a stored slice's
 * bytes cost the isolate almost nothing, and it holds none of them). The body goes through a
 * FixedLengthStream of its length, so the put fails unless exactly that many bytes arrive; it
 * counts as stored only when both the pipe and the put succeeded (a pipe into that stream
 * resolves even when the stream then fails for being short: the put is what says so). Any
 * failure is a failed fill (remembered, its entry deleted: the local runtime keeps what arrived
 * of a failed put). `signal` gives it up. A body not marked as the runtime's own, of exactly
 * its length (nativeBody), and any body where the runtime cannot pipe (Node), is counted by
 * JavaScript instead (store).
 */
export async function storeNatively(
  cache: TierCache,
  key: string,
  entry: Storable & { length: number },
  signal?: AbortSignal,
): Promise<boolean> {
  // Only a body the runtime made, framed as exactly its length (native-body.ts); any other is counted by JavaScript.
  if (!pipesNatively() || !isNativeBody(entry.body as ReadableStream<Uint8Array>)) return store(cache, key, entry);
  const fill = entry.fill ?? newFill();
  const fixed = new (globalThis as unknown as { FixedLengthStream: Fixed }).FixedLengthStream(entry.length);
  const headers = toStoredHeaders(entry.headers, entry.meta, entry.retention, {
    length: entry.length,
    fill,
    ...(entry.status !== PLATFORM_STATUS ? { status: entry.status } : {}),
  });
  const putting = cache.put(new Request(key), responseAsIs(fixed.readable, { status: PLATFORM_STATUS, headers })).then(
    () => true,
    () => false,
  );
  const piping = (entry.body as ReadableStream<Uint8Array>)
    .pipeTo(fixed.writable, signal === undefined ? {} : { signal })
    .then(
      () => true,
      () => false,
    );
  const [put, piped] = await Promise.all([putting, piping]);
  if (put && piped) return true;
  rememberFailed(fill);
  await remove(cache, key).catch(() => false);
  return false;
}
