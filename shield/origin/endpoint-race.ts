// A GET or HEAD raced over an origin's endpoints (failover-origin.ts, when hedging is on and two or more are usable):
// the first endpoint in health's order is asked; if no head has come within the learnt wait (hedge-policy.ts) and the
// cap allows, the same request goes to the next one as well (a hedge). The first usable answer (not an error, not 5xx
// or 429) wins; every other attempt is cancelled at once (its fetch aborted, its body, if it came, cancelled), and is
// `released` in the health's books: it neither answered nor failed. A failure is failed over as without hedging:
// the next endpoint is asked at once unless another attempt is still under way. `fetch` resolves with the head, so the
// race is between heads and no body byte of a loser reaches anyone.

import { ClientGone } from '../../shared/http/errors.ts';
import type { HedgeTally } from '../../shared/observe/hedge-tally.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';
import type { EndpointHealth } from './endpoint-health.ts';
import { answerBytes, type HedgePolicy, loserCharge, worthHedging } from './hedge-policy.ts';
import type { ObjectAsk, Origin } from './origin.ts';
import type { ForwardedHeaders } from './s3-request.ts';

/** The endpoints a race may ask, and the books it keeps. */
export interface RaceField {
  endpoints: readonly Pick<Origin, 'fetch'>[];
  names: readonly string[];
  /** Indices into `endpoints`, in the order to ask them (EndpointHealth.order). */
  order: readonly number[];
  health: EndpointHealth;
  policy: HedgePolicy;
  tally: HedgeTally;
  /** How an answer is judged: usable (it wins), or a failure to fail over from (its Retry-After, if busy). */
  failure: (response: Response) => { retryAfterMs: number | undefined } | undefined;
}

interface Attempt {
  index: number;
  started: number;
  hedge: boolean;
  controller: AbortController;
  settled: boolean;
}

/** The race for one GET or HEAD; resolves with the winner's head, or the last failure's answer or error. */
export function raceEndpoints(
  field: RaceField,
  target: RequestTarget,
  method: 'GET' | 'HEAD',
  forwarded: ForwardedHeaders,
  ask: ObjectAsk,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    new EndpointRace(field, { target, method, forwarded, ask }, resolve, reject).start(false);
  });
}

interface Asked {
  target: RequestTarget;
  method: 'GET' | 'HEAD';
  forwarded: ForwardedHeaders;
  ask: ObjectAsk;
}

class EndpointRace {
  readonly #field: RaceField;
  readonly #asked: Asked;
  readonly #resolve: (response: Response) => void;
  readonly #reject: (error: unknown) => void;
  readonly #waitMs: number;
  readonly #attempts: Attempt[] = [];
  #position = 0;
  #done = false;
  #hedgeTimer: ReturnType<typeof setTimeout> | undefined;
  /** The budget's room a hedge took: given back once the race is decided (one attempt goes on, as the request's). */
  #spare: (() => void) | undefined;

  constructor(field: RaceField, asked: Asked, resolve: (response: Response) => void, reject: (error: unknown) => void) {
    this.#field = field;
    this.#asked = asked;
    this.#resolve = resolve;
    this.#reject = reject;
    field.policy.asked();
    this.#waitMs = field.policy.thresholdMs();
  }

  /** The next endpoint in order asked: the first, a hedge, or the one failed over to. */
  start(hedge: boolean): void {
    const { order, names, endpoints, health, tally } = this.#field;
    const { target, method, forwarded, ask } = this.#asked;
    const index = order[this.#position] as number;
    const last = this.#position === order.length - 1;
    this.#position += 1;
    const controller = new AbortController();
    // The client going away ends every attempt, the winner's body included (timed-fetch.ts hears it).
    const onClientGone = (): void => controller.abort(ask.signal?.reason);
    if (ask.signal?.aborted === true) onClientGone();
    else ask.signal?.addEventListener('abort', onClientGone, { once: true });
    const attempt: Attempt = { index, started: Date.now(), hedge, controller, settled: false };
    this.#attempts.push(attempt);
    health.asking(names[index] as string, attempt.started);
    if (hedge) tally.started();
    // Another endpoint to ask: a busy answer is not waited out here (ObjectAsk.busy).
    const attemptAsk: ObjectAsk = { ...ask, signal: controller.signal, ...(last ? {} : { busy: 'answer' as const }) };
    (endpoints[index] as Pick<Origin, 'fetch'>).fetch(target, method, forwarded, attemptAsk).then(
      (response) => this.#answered(attempt, response),
      (error: unknown) => this.#erred(attempt, error),
    );
    this.#armHedge();
  }

  #underWay(): Attempt[] {
    return this.#attempts.filter((attempt) => !attempt.settled);
  }

  /** The next endpoint is hedged onto once the wait is over and nothing has come, if the cap allows. */
  #armHedge(): void {
    if (this.#hedgeTimer !== undefined) clearTimeout(this.#hedgeTimer);
    const { order, policy } = this.#field;
    if (this.#position >= order.length || this.#underWay().length !== 1) return;
    const first = this.#underWay()[0] as Attempt;
    this.#hedgeTimer = setTimeout(
      () => {
        if (this.#done || this.#position >= order.length || this.#underWay().length !== 1) return;
        if (!worthHedging(this.#asked.forwarded)) return;
        // A hedge is a second transfer under way: only within the budget's room (ObjectAsk.spare), and the cap's.
        const { ask } = this.#asked;
        const room = ask.spare?.();
        if (ask.spare !== undefined && room === undefined) return;
        if (!policy.take()) return room?.();
        this.#spare = room;
        this.start(true);
      },
      Math.max(0, first.started + this.#waitMs - Date.now()),
    );
  }

  #answered(attempt: Attempt, response: Response): void {
    if (this.#done || attempt.settled) {
      // Cancelled while its head was on the way: its body is let go unread.
      void response.body?.cancel().catch(() => undefined);
      return;
    }
    attempt.settled = true;
    const { names, health, policy } = this.#field;
    const name = names[attempt.index] as string;
    const failure = this.#field.failure(response);
    if (failure === undefined) {
      const firstByteMs = Date.now() - attempt.started;
      health.answered(name, firstByteMs);
      policy.firstByte(firstByteMs);
      this.#finish({ response, winner: attempt });
      return;
    }
    health.failed(name, Date.now(), failure.retryAfterMs);
    this.#failedOver(() => this.#finish({ response, winner: attempt }), response);
  }

  #erred(attempt: Attempt, error: unknown): void {
    if (this.#done || attempt.settled) return;
    attempt.settled = true;
    const name = this.#field.names[attempt.index] as string;
    // The client went away: nothing was learnt of the endpoint, and nobody is left to answer.
    if (error instanceof ClientGone || this.#asked.ask.signal?.aborted === true) {
      this.#field.health.released(name);
      this.#finish({ error });
      return;
    }
    this.#field.health.failed(name, Date.now());
    this.#failedOver(() => this.#finish({ error }));
  }

  /**
   * An attempt failed: the next endpoint is asked at once when no other is under way; with none left to ask, the
   * failure is the answer (`last`).
   */
  #failedOver(last: () => void, response?: Response): void {
    if (this.#underWay().length > 0) {
      void response?.body?.cancel().catch(() => undefined);
      this.#armHedge();
      return;
    }
    if (this.#position >= this.#field.order.length) {
      last();
      return;
    }
    void response?.body?.cancel().catch(() => undefined);
    this.start(false);
  }

  #finish(outcome: { response: Response; winner: Attempt } | { error: unknown }): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#hedgeTimer !== undefined) clearTimeout(this.#hedgeTimer);
    this.#spare?.();
    if ('error' in outcome) {
      this.#cancelOthers(undefined);
      this.#reject(outcome.error);
      return;
    }
    const { response, winner } = outcome;
    const { policy, tally } = this.#field;
    const losers = this.#attempts.filter((attempt) => attempt !== winner && !attempt.settled);
    this.#cancelOthers(winner);
    const bytes = answerBytes(this.#asked.method, response);
    policy.served(bytes);
    if (this.#attempts.some((attempt) => attempt.hedge)) {
      // Each loser was cancelled before its head came: what it may have sent all the same (hedge-policy.ts).
      const loserBytes = losers.reduce((sum, loser) => sum + loserCharge(bytes, loser.hedge), 0);
      policy.lost(loserBytes);
      tally.ended(winner.hedge, loserBytes);
    }
    this.#resolve(response);
  }

  /** Every attempt but `winner` cancelled at once, and released: it neither answered nor failed. */
  #cancelOthers(winner: Attempt | undefined): void {
    for (const attempt of this.#attempts) {
      if (attempt === winner || attempt.settled) continue;
      attempt.settled = true;
      this.#field.health.released(this.#field.names[attempt.index] as string);
      attempt.controller.abort();
    }
  }
}
