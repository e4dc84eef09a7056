// What the first half of the read path finds (object-read.ts), for the second half and the tier's answer: a
// whole response, or a sliced object's manifest with the slices discovery brought.

import type { CacheStatusParams } from '../http/cache-status.ts';
import { evaluatePreconditions } from '../http/conditional.ts';
import type { ObjectMeta } from '../slices/object-meta.ts';
import type { EntryMeta } from '../store/stored-entry.ts';

/** A whole response (stored, from upstream, or an upstream error) to deliver as it is. */
export interface WholeObject {
  kind: 'whole';
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
  age: number;
  report: CacheStatusParams;
  /** When its bytes came from the origin (EntryMeta.originAt). */
  originAt: number;
  /** The timing it is stored under here; undefined when this tier does not store it. */
  entry?: EntryMeta | undefined;
}

/** A sliced object: its manifest, and how its slices may be stored here. */
export interface SlicedObject {
  kind: 'sliced';
  meta: ObjectMeta;
  age: number;
  report: CacheStatusParams;
  /** When its manifest's version came from (or was confirmed by) the origin. */
  originAt: number;
  /** The upstream answer's headers when we went upstream (its Cache-Status, Server-Timing). */
  upstreamHeaders: Headers | undefined;
  /** Timing to store slices under; undefined when the object may not be stored. */
  entry: EntryMeta | undefined;
  /** Slices that came with discovery. */
  prefetched: Map<number, ReadableStream<Uint8Array>>;
  /** False when discovery found the wanted slice past the end of the object. */
  inRange: boolean;
}

export type Resolved = WholeObject | SlicedObject;

/**
 * Lets go of the slices discovery brought that the read will not take (all of them, unless `taken`
 * names some): every cancel starts at once, and the promise settles when all have (a failed one is
 * let go). Whoever no longer needs them awaits it or not, as the moment asks.
 */
export function cancelPrefetched(
  sliced: { prefetched?: ReadonlyMap<number, ReadableStream<Uint8Array>> | undefined },
  taken: readonly number[] = [],
): Promise<void> {
  const cancels: Promise<unknown>[] = [];
  for (const [index, body] of sliced.prefetched ?? [])
    if (!taken.includes(index)) cancels.push(body.cancel().catch(() => undefined));
  return Promise.all(cancels).then(() => undefined);
}

/**
 * Whether the conditions of a revalidation (If-None-Match, If-Modified-Since) still select what was resolved: a sliced
 * object, or a whole 200 (RFC 9110 §13.1); the copy the tier in front holds is current.
 */
export function isCurrent(resolved: Resolved, conditions: Headers): boolean {
  const representation = resolved.kind === 'whole' ? resolved.headers : resolved.meta.headers;
  return (
    (resolved.kind === 'sliced' || resolved.status === 200) &&
    evaluatePreconditions(conditions, representation) === 'not-modified'
  );
}
