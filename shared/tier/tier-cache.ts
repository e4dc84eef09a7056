// One tier's stored entries, over whatever Cache the tier hands in (its own namespace, never caches.default):
// lookup, the put JavaScript counts, the put the runtime moves, and removal; a body is stored only when exact.

import { LengthMismatch } from '../http/errors.ts';
import { type EntryMeta, fromStoredHeaders, PLATFORM_STATUS, toStoredHeaders } from '../store/stored-entry.ts';
import { bodySource } from '../streams/body-source.ts';
import { emptyBody } from '../streams/empty-body.ts';
import { identityPipe } from '../streams/identity-pipe.ts';
import { isNativeBody, pipesNatively } from '../streams/native-body.ts';
import { pumpInto } from '../streams/pump-into.ts';
import { responseAsIs } from '../streams/response-as-is.ts';

/** workerd's FixedLengthStream: a pipe that fails unless exactly `length` bytes pass. */
type Fixed = new (length: number) => TransformStream<Uint8Array, Uint8Array>;

/** The part of the Workers Cache API a tier uses. */
export interface TierCache {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
  delete(request: Request): Promise<boolean>;
  /**
   * Whether a put of `entry` at `key` would be kept: a store that keeps only what it admits (the R2 tier's,
   * shield/r2/r2-admitted.ts); absent, everything is. Asked before a body is streamed into a put, so that a reader of
   * it is never let go of to read back from the store what was never kept (fill.ts).
   */
  admits?(key: string, entry: Omit<Storable, 'body'>): boolean;
}

/** Whether `cache` would keep a put of `entry` at `key` (TierCache.admits). */
export function admits(cache: TierCache, key: string, entry: Omit<Storable, 'body'>): boolean {
  return cache.admits?.(key, entry) !== false;
}

export interface StoredEntry {
  status: number;
  headers: Headers;
  meta: EntryMeta;
  /** Never null: an entry stored without bytes has an empty body (lookup). */
  body: ReadableStream;
  /** The bytes the body holds, as counted when it was stored; undefined when unknown. */
  length: number | undefined;
  /** Which fill stored it (Storable.fill). */
  fill: number | undefined;
}

/**
 * Fills of this isolate whose body turned out inexact, newest last; a bounded memory. The platform
 * cannot be trusted to refuse a body whose stream failed: the local Cache API keeps what arrived of
 * it, under the length it was announced with, and may commit it after the put has already failed
 * (so a delete right after can come too early). So every put is counted, and every entry names the
 * fill that wrote it: a fill whose body was short, long or broken is remembered here, its entry is
 * deleted, and whenever a lookup in this isolate meets an entry of a failed fill (however late the
 * platform committed it) it is deleted and counts as a miss. Entries also record the length they
 * were counted at; a lookup that finds the platform's length disagreeing treats the entry as gone.
 * The Cache is a parameter throughout, never the runtime's own: each tier opens its namespace
 * (tiercache-edge, tiercache-shield), so the tiers never answer for each other.
 */
const failedFills = new Set<number>();
const FAILED_FILLS_KEPT = 4096;

/** Fill `fill` turned out inexact: no lookup in this isolate will take its entry. */
function rememberFailed(fill: number): void {
  failedFills.add(fill);
  if (failedFills.size > FAILED_FILLS_KEPT) failedFills.delete(failedFills.values().next().value as number);
}

/** Whether a stored entry's body cannot be the one that was counted in. */
export function isUnsound(fill: number | undefined, length: number | undefined, declared: string | null): boolean {
  return (
    (fill !== undefined && failedFills.has(fill)) ||
    (length !== undefined && declared !== null && declared !== String(length))
  );
}

/** Look up by key alone, so the platform never applies the client's Range or conditionals. */
export async function lookup(cache: TierCache, key: string): Promise<StoredEntry | undefined> {
  const found = await cache.match(new Request(key));
  if (found === undefined) return undefined;
  const unpacked = fromStoredHeaders(found.headers);
  if (unpacked === undefined) {
    await found.body?.cancel();
    return undefined;
  }
  const { length, fill } = unpacked.body;
  if (isUnsound(fill, length, found.headers.get('content-length'))) {
    // Not the body that was counted in: never serve it, and do not meet it again.
    await found.body?.cancel();
    await remove(cache, key).catch(() => false);
    return undefined;
  }
  return {
    status: unpacked.body.status ?? found.status,
    headers: unpacked.headers,
    meta: unpacked.meta,
    // The platform hands an entry stored with no bytes back without a body (null): an empty object's 200 still has
    // content, of length 0 (RFC 9110 §6.4.1), and is answered, ranged and revalidated as any other.
    body: found.body ?? emptyBody(),
    length,
    fill,
  };
}

/** An entry to store: its body is counted in (store, openPut) or moved by the runtime (storeNatively). */
export interface Storable {
  status: number;
  headers: Headers;
  body: ReadableStream;
  meta: EntryMeta;
  /** Seconds the platform should keep the entry. */
  retention: number;
  /**
   * Bytes the body must hold: its Content-Length, or the slice's; undefined = unknown (then only a clean end counts).
   */
  length: number | undefined;
  /** Names this fill (newFill), for a client that reads the rest of it back from the store; one is made when absent. */
  fill?: number;
}

/** A put being written: bytes in, then close (or abort: nothing is kept). */
export interface OpenPut {
  /** Done once the bytes are taken (they may be reused then). */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the body: true once it is stored, exactly; false when nothing is kept. */
  close(): Promise<boolean>;
  /** Gives the put up: nothing is kept (settles as close does, with false). */
  abort(reason: unknown): Promise<boolean>;
}

/**
 * A put of `entry` whose body is written into it, counted as it goes: exactly its length (when
 * known) and a close, or nothing is kept. In workerd the put reads a FixedLengthStream, so the
 * length is announced to the platform and a short body fails the put too.
 */
export function openPut(cache: TierCache, key: string, entry: Omit<Storable, 'body'>): OpenPut {
  const fill = entry.fill ?? newFill();
  const { readable, writer } = identityPipe(entry.length);
  const headers = toStoredHeaders(entry.headers, entry.meta, entry.retention, {
    length: entry.length,
    fill,
    ...(entry.status !== PLATFORM_STATUS ? { status: entry.status } : {}),
  });
  const putting = cache.put(new Request(key), responseAsIs(readable, { status: PLATFORM_STATUS, headers })).then(
    () => true,
    () => false,
  );
  let written = 0;
  let failed = false;
  // The moment a body is known to be wrong, its fill is: no lookup in this isolate will take it.
  const fail = (reason: unknown): void => {
    if (failed) return;
    failed = true;
    rememberFailed(fill);
    void writer.abort(reason);
  };
  let outcome: Promise<boolean> | undefined;
  const settle = (exact: boolean): Promise<boolean> =>
    (outcome ??= (async () => {
      const put = await putting;
      if (put && exact && !failed) return true;
      rememberFailed(fill);
      await remove(cache, key).catch(() => false);
      return false;
    })());
  return {
    async write(bytes) {
      written += bytes.byteLength;
      if (entry.length !== undefined && written > entry.length) {
        fail(new LengthMismatch(`body ran past its ${entry.length} bytes`));
        throw new LengthMismatch(`body ran past its ${entry.length} bytes`);
      }
      await writer.write(bytes);
    },
    async close() {
      if (failed) return settle(false);
      if (entry.length !== undefined && written !== entry.length) {
        fail(new LengthMismatch(`body ended after ${written} of ${entry.length} bytes`));
        return settle(false);
      }
      const closed = await writer.close().then(
        () => true,
        () => false,
      );
      if (!closed) fail(new Error('the put did not take the body'));
      return settle(closed);
    },
    abort(reason) {
      fail(reason);
      return settle(false);
    },
  };
}

/** Stores `entry` if its body is exactly what it claims; true once it is stored so, false when nothing is kept. */
export async function store(cache: TierCache, key: string, entry: Storable): Promise<boolean> {
  const put = openPut(cache, key, entry);
  try {
    await pumpInto(bodySource(entry.body as ReadableStream<Uint8Array>, { length: entry.length }), (bytes) =>
      put.write(bytes),
    );
  } catch (error) {
    return put.abort(error);
  }
  return put.close();
}

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

/** A name for one fill of an entry, unlike any other this isolate makes. */
export function newFill(): number {
  const [high = 0, low = 0] = crypto.getRandomValues(new Uint32Array(2));
  return (high % 2 ** 21) * 2 ** 32 + low;
}

export function remove(cache: TierCache, key: string): Promise<boolean> {
  return cache.delete(new Request(key));
}

/**
 * Forget this tier's entry for the request (its manifest, when the object changed upstream); a failed delete is let go.
 */
export function forgetObject(read: { cache: TierCache; key: string }): Promise<boolean> {
  return remove(read.cache, read.key).catch(() => false);
}
