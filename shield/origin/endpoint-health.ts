// What this isolate has seen of each endpoint of one origin (ORIGIN_URL listing several: failover-origin.ts), passive
// only: nothing is asked for its own sake. An endpoint that failed (refused, timed out, answered 5xx or 429) has its
// circuit opened for a while, backing off (jittered, capped; a Retry-After it sent is heeded up to the cap), so that
// requests go to the others meanwhile instead of waiting on it; once the while is over one request tries it again
// (half-open), and its answer closes the circuit or opens it for longer. The endpoints asked are those whose circuit
// is not open, in the configured order; only when every circuit is open is one asked, the one to reopen soonest, so
// that an origin down at every endpoint costs a request one timeout, not one per endpoint.

import { backoffMs } from '../../shared/http/busy-origin.ts';
import type { CircuitState, OriginEndpoint } from '../../shared/http/health-report.ts';

/** The first time an endpoint's circuit opens, for about this long; each time in a row it opens again, twice as long. */
const OPEN_BASE_MS = 2_000;
/** The longest it stays open, whatever it said: a long Retry-After (Storj's 120 s) is heeded up to here. */
export const OPEN_MAX_MS = 30_000;
const CIRCUIT = { baseMs: OPEN_BASE_MS, maxMs: OPEN_MAX_MS };
/** The newest first byte's weight in the decaying average. */
const FIRST_BYTE_WEIGHT = 0.25;

interface Endpoint {
  failures: number;
  /** Opened at least once and not closed since: when it may be tried again. */
  openUntil: number | undefined;
  /** A trial of a half-open circuit is under way: others are not sent to it meanwhile. */
  trial: boolean;
  firstByteMs: number | undefined;
}

export class EndpointHealth {
  readonly #endpoints = new Map<string, Endpoint>();
  readonly #random: () => number;

  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  /**
   * The indices of `endpoints` to ask at `now`, in order: the usable ones as configured; none usable, the open one to
   * reopen soonest, alone.
   */
  order(endpoints: readonly string[], now: number): number[] {
    const usable: number[] = [];
    const open: number[] = [];
    endpoints.forEach((name, index) => {
      const state = this.#stateOf(this.#endpoints.get(name), now);
      (state === 'closed' || (state === 'half-open' && this.#endpoints.get(name)?.trial !== true) ? usable : open).push(
        index,
      );
    });
    const until = (index: number): number => this.#endpoints.get(endpoints[index] ?? '')?.openUntil ?? 0;
    if (usable.length > 0) return usable;
    return open.sort((a, b) => until(a) - until(b)).slice(0, 1);
  }

  /** A request is about to go to `name`: a half-open circuit's trial is this one. */
  asking(name: string, now: number): void {
    const endpoint = this.#endpoint(name);
    if (this.#stateOf(endpoint, now) === 'half-open') endpoint.trial = true;
  }

  /** `name` answered (anything but a failure) after `firstByteMs`: its circuit closes. */
  answered(name: string, firstByteMs: number): void {
    const endpoint = this.#endpoint(name);
    endpoint.failures = 0;
    endpoint.openUntil = undefined;
    endpoint.trial = false;
    endpoint.firstByteMs =
      endpoint.firstByteMs === undefined
        ? firstByteMs
        : endpoint.firstByteMs + FIRST_BYTE_WEIGHT * (firstByteMs - endpoint.firstByteMs);
  }

  /** A request to `name` ended without a word on it (its client went away): a trial of its circuit is over. */
  released(name: string): void {
    this.#endpoint(name).trial = false;
  }

  /**
   * `name` failed at `now`: its circuit opens, for longer each time in a row (jittered: isolates that saw the same
   * failure do not all come back at once), or for what its Retry-After asked; never past OPEN_MAX_MS.
   */
  failed(name: string, now: number, retryAfterMs?: number): void {
    const endpoint = this.#endpoint(name);
    endpoint.failures += 1;
    endpoint.trial = false;
    endpoint.openUntil = now + backoffMs(endpoint.failures, CIRCUIT, retryAfterMs, this.#random);
  }

  /** What the health answer says of each of `endpoints` at `now`. */
  report(endpoints: readonly string[], now: number): OriginEndpoint[] {
    return endpoints.map((name) => {
      const endpoint = this.#endpoints.get(name);
      const state = this.#stateOf(endpoint, now);
      return {
        endpoint: name,
        state,
        failures: endpoint?.failures ?? 0,
        ...(endpoint?.firstByteMs === undefined ? {} : { firstByteMs: Math.round(endpoint.firstByteMs) }),
        ...(state === 'open' && endpoint?.openUntil !== undefined ? { openUntil: endpoint.openUntil } : {}),
      };
    });
  }

  #stateOf(endpoint: Endpoint | undefined, now: number): CircuitState {
    if (endpoint?.openUntil === undefined) return 'closed';
    return now < endpoint.openUntil ? 'open' : 'half-open';
  }

  #endpoint(name: string): Endpoint {
    let endpoint = this.#endpoints.get(name);
    if (endpoint === undefined) {
      endpoint = { failures: 0, openUntil: undefined, trial: false, firstByteMs: undefined };
      this.#endpoints.set(name, endpoint);
    }
    return endpoint;
  }
}

/**
 * This isolate's view of every origin endpoint it asked: module state, declared. Each isolate learns on its own
 * (nothing is shared between isolates), bounded by the endpoints configured (MAX_ORIGIN_ENDPOINTS per origin).
 */
export const isolateEndpoints = new EndpointHealth();
