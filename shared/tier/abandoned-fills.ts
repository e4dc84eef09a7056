// What bounds a fill of the next hop's body once nobody waits for it: how it hears that its clients have gone (their
// signal, requests collapsed on its key), and the isolate's budget of bytes pulled for nobody (module state: each tier
// is its own isolate, with its own), as slice-reader/isolate-pool.ts is for read-ahead. A fill holds its allowance of
// that budget from the moment it is abandoned until it ends; one that finds no room stops (fill.ts).

import { isolateAdmits } from '../store/fill-budget.ts';
import { isAwaited } from './collapse.ts';
import type { AbandonedPool, FillOptions } from './fill.ts';
import type { ObjectRead } from './ports.ts';

const held = { limit: 0, inUse: 0 };

const pool: AbandonedPool = {
  take(bytes) {
    if (!isolateAdmits(held, bytes)) return false;
    held.inUse += bytes;
    return true;
  },
  giveBack(bytes) {
    held.inUse = Math.max(0, held.inUse - bytes);
  },
};

/** This isolate's pool, of `limit` bytes (ABANDONED_ISOLATE_MAX: the same for every request of a tier). */
function isolateAbandonedPool(limit: number): AbandonedPool {
  held.limit = limit;
  return pool;
}

/**
 * What bounds a fill of the next hop's body for `read` (fill.ts): the limits of a body without a length, and, for a
 * client's request, how the fill hears that nobody waits for it any more (besides the client's signal, which the fill
 * is handed as `signal`: requests collapsed on the object's key or its variant's) and the isolate's budget then. A
 * background refresh is the cache's own: never abandoned.
 */
export function nextHopBounds(read: ObjectRead): Pick<FillOptions, 'limits' | 'clients'> {
  if (read.fillsFor === 'cache') return { limits: read.fills };
  const { key, objectKey } = read;
  return {
    limits: read.fills,
    clients: {
      pool: isolateAbandonedPool(read.fills.abandonedIsolateMax),
      awaited: () => isAwaited(key) || (objectKey !== undefined && isAwaited(objectKey)),
    },
  };
}

/** A request's signal for the next hop until its answer's head arrives (untilHead). */
export interface HeadSignal {
  signal: AbortSignal | undefined;
  /** The head is in (or the request failed): from now on the signal never aborts. */
  headIn(): void;
}

/**
 * Until its head arrives, the next hop's answer is the client's alone: nothing of it is this tier's yet. A client that
 * leaves before it, with no other request waiting for the same fill, cancels the request, and so the next tier hears
 * that its own client left (its fill stops as one nobody waits for: held until whole, an endless body would otherwise
 * go on there unseen). Once the head is in, what the answer brings is the cache's, as far as fill.ts allows.
 */
export function untilHead(read: ObjectRead): HeadSignal {
  const client = read.signal;
  if (client === undefined || read.fillsFor === 'cache') return { signal: undefined, headIn: () => undefined };
  const { key } = read;
  const asking = new AbortController();
  const onGone = (): void => {
    if (!isAwaited(key)) asking.abort(client.reason);
  };
  if (client.aborted) onGone();
  else client.addEventListener('abort', onGone, { once: true });
  return { signal: asking.signal, headIn: () => client.removeEventListener('abort', onGone) };
}
