// The origin within its transfer budget (transfer-budget.ts): a decorator over the origin as one (its endpoints behind
// failover-origin.ts, or the kind's own implementation), so that every request the shield makes of it, whichever
// endpoint answers it, counts once. A request takes a lease before it is sent and holds it until its body is done
// with (read to its end, cancelled, or failed): a transfer is under way at the origin until then, which is what the
// origin's own limit counts. No lease within ORIGIN_BUSY_WAIT_MS: the request is answered busy at once, and the read
// path serves a stale copy where one may stand in for an error (RFC 9111 §4.2.4, RFC 5861 §4).

import { clientRetryAfter, isBusy, retryAfterOf } from '../../shared/http/busy-origin.ts';
import { BodyStalled, ClientGone, OriginBusy } from '../../shared/http/errors.ts';
import { responseAsIs } from '../../shared/streams/response-as-is.ts';
import { streamReader } from '../../shared/streams/stream-reader.ts';
import type { Origin } from './origin.ts';
import type { Lease, TransferBudget } from './transfer-budget.ts';

/**
 * `inner` within `budget`. `remember` is told of each origin it derives (a host's bucket), as origin-of.ts remembers a
 * kind's, so that a derived configuration finds its budgeted origin again, made once.
 */
export function budgetedOrigin(
  inner: Origin,
  budget: TransferBudget,
  remember: (origin: Origin) => void = () => undefined,
): Origin {
  const derived = new Map<Origin, Origin>();
  const over = (other: Origin): Origin => {
    if (other === inner) return self;
    let made = derived.get(other);
    if (made === undefined) {
      made = budgetedOrigin(other, budget, remember);
      derived.set(other, made);
      remember(made);
    }
    return made;
  };
  const waitMs = inner.config.originBudget.busyWaitMs;
  const self: Origin = {
    traits: inner.traits,
    config: inner.config,
    keyPrefix: inner.keyPrefix,
    passesAnswersOn: inner.passesAnswersOn,
    forHost: (host) => over(inner.forHost(host)),
    inBucket: (bucket) => over(inner.inBucket(bucket)),
    async fetch(target, method, forwarded, ask = {}) {
      const lease = await leased(budget, waitMs, ask.signal);
      // Its own end, so that a body let go of ends the transfer at once (releasedAtEnd).
      const transfer = new AbortController();
      try {
        const response = await inner.fetch(target, method, forwarded, {
          ...ask,
          signal: ask.signal === undefined ? transfer.signal : AbortSignal.any([ask.signal, transfer.signal]),
          spare: () => {
            const room = budget.tryTake();
            return room && (() => room.release());
          },
          onBusy: (busy) => {
            if (throttles(inner, busy)) budget.busy(retryAfterOf(busy));
            ask.onBusy?.(busy);
          },
        });
        // The origin as a whole (every endpoint failover-origin.ts asked) was busy; a 5xx says nothing of its load.
        if (throttles(inner, response)) budget.busy(retryAfterOf(response));
        else if (response.status < 500) budget.answered();
        return releasedAtEnd(response, lease, transfer, inner.config.originIdleTimeoutMs);
      } catch (error) {
        lease.release();
        throw error;
      }
    },
    keptHeaders: (headers) => inner.keptHeaders(headers),
    failure: (response) => inner.failure(response),
    bypassAnswer: (response) => inner.bypassAnswer(response),
    probeTarget(healthKey) {
      const { origin, target } = inner.probeTarget(healthKey);
      return { origin: over(origin), target };
    },
    probe: (ask) => inner.probe(ask),
    async passThrough(target, request) {
      const lease = await leased(budget, waitMs, request.signal);
      try {
        return releasedAtEnd(
          await inner.passThrough(target, request),
          lease,
          new AbortController(),
          inner.config.originIdleTimeoutMs,
        );
      } catch (error) {
        lease.release();
        throw error;
      }
    },
  };
  return self;
}

/** A lease within `waitMs`; else the busy answer of ours, quickly, with a Retry-After as short as the cool-down allows. */
async function leased(budget: TransferBudget, waitMs: number, signal: AbortSignal | undefined): Promise<Lease> {
  const lease = await budget.take(waitMs, signal);
  if (lease !== undefined) return lease;
  if (signal?.aborted === true) throw new ClientGone();
  const cooling = budget.coolingFor();
  throw new OriginBusy(clientRetryAfter(cooling > 0 ? String(Math.ceil(cooling / 1000)) : null, Date.now())).because(
    'origin-budget',
  );
}

/**
 * Whether an answer asks the shield to slow down: a 429 (RFC 6585 §4), or a 503 from S3 (SlowDown, Storj's answer
 * past its limit) or one naming a Retry-After (RFC 9110 §15.6.4). A site's bare 503 is one path's failure as often as
 * the site's load: it fails its own request, and pauses no other.
 */
function throttles(origin: Origin, response: Response): boolean {
  if (!isBusy(response.status)) return false;
  return response.status === 429 || !origin.passesAnswersOn || response.headers.has('retry-after');
}

/** The most a read of a body asks of the origin's stream at once (BYOB, where the stream allows it). */
const CHUNK_BYTES = 256 * 1024;

/**
 * `response` with `lease` released once its body is done with: read to its end, failed, or let go of (cancelled, which
 * also ends the transfer: `transfer` aborts its fetch); at once for one without a body. Each chunk passes through
 * JavaScript, read in chunks of up to CHUNK_BYTES: workerd's own pipe into an IdentityTransformStream was tried and
 * leaves its reader waiting for good when the origin's connection is reset part-way, where the tiers must see the body
 * fail to heal it. A read silent for ORIGIN_IDLE_TIMEOUT_MS fails the body as stalled: workerd calls a stream's
 * `cancel` only once its `pull` is done, so the tiers' own watch (shared/streams/silence-watch.ts) could not reach a
 * read under way here.
 */
function releasedAtEnd(response: Response, lease: Lease, transfer: AbortController, idleMs: number): Response {
  const source = response.body;
  // A status no Response may be built with (RFC 9110 §15: not an HTTP answer) is refused by the caller as it came.
  if (source === null || response.status < 200 || response.status > 599) {
    lease.release();
    return response;
  }
  const reader = streamReader(source);
  // A buffer of its own for each read: the chunk is handed on, not copied.
  const read = async (): Promise<Uint8Array | undefined> => {
    const { done, value } = await reader.read(new Uint8Array(CHUNK_BYTES));
    return done ? undefined : value;
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const chunk = await withinSilence(read(), idleMs, transfer);
          if (chunk !== undefined) return controller.enqueue(chunk);
          lease.release();
          controller.close();
        } catch (error) {
          lease.release();
          controller.error(error);
        }
      },
      cancel(reason) {
        lease.release();
        transfer.abort(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return responseAsIs(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** `read`, unless nothing comes for `idleMs`: then the transfer ends, and the read fails as the stall it is. */
async function withinSilence<T>(read: Promise<T>, idleMs: number, transfer: AbortController): Promise<T> {
  let stalled: (stall: BodyStalled) => void = () => undefined;
  const silent = new Promise<never>((_, reject) => {
    stalled = reject;
  });
  const timer = setTimeout(() => {
    const stall = new BodyStalled(`no byte from the origin for ${idleMs} ms`);
    transfer.abort(stall);
    stalled(stall);
  }, idleMs);
  try {
    return await Promise.race([read, silent]);
  } finally {
    clearTimeout(timer);
  }
}
