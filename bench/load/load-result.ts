// What a load run is asked and what it answers, the same whichever generator runs it: wrk (wrk.ts) or the
// keep-alive Node generator (node-http.ts); run-load.ts picks one.

/** Per request, until its last body byte, unless the options say otherwise. */
export const DEFAULT_TIMEOUT_SEC = 10;
export const MIB = 2 ** 20;

export interface LoadOptions {
  /** One URL, or several taken in turn (round-robin); http: only. */
  url: string | string[];
  connections: number;
  /** Requests in all, across the connections (10 connections × 50 requests = 500). */
  requests?: number;
  /** Or: keep every connection busy this long. Exactly one of `requests` and `durationSec`. */
  durationSec?: number;
  headers?: Record<string, string>;
  /** Per request, until its last body byte; 10 s unless said. */
  timeoutSec?: number;
  /** The whole run is stopped after this long, and the run then rejects. */
  maxSeconds: number;
  /** Forces a generator; by default wrk runs when it is installed (durations in whole seconds, URLs of one origin). */
  tool?: LoadResult['tool'];
  /** Every answer's body length, when each must carry the whole object (lets wrk check statuses cheaply). */
  bodyBytes?: number;
}

/** Counted alike by both tools; what differs with wrk (its bytes, latencies and statuses) is said in wrk.ts. */
export interface LoadResult {
  tool: 'wrk 4.x' | 'node-http';
  /** Responses received in full (any status). */
  requests: number;
  /** Requests written, for a fixed count (wrk writes none past it either). */
  sent?: number;
  /** Exchanges that ended without a response (refused, reset, timed out): requests + errors = a fixed count. */
  errors: number;
  /** wrk only: its own socket error count (connect, read, write, timeout), for the record. */
  socketErrors?: number;
  non2xx: number;
  elapsedSec: number;
  reqPerSec: number;
  bytes: number;
  mibPerSec: number;
  /** From writing a request to its last body byte, over the `requests` answered; NaN when none were. */
  latency: { meanMs: number; p50Ms: number; p99Ms: number; maxMs: number };
}

/** One response's status and the header fields asked for (sampleHeaders, timedGet). */
export interface HeaderSample {
  status: number;
  /** By lower-case name; undefined when the response did not have the field. */
  headers: Record<string, string | undefined>;
}
