// When a GET or HEAD that one endpoint has not answered yet is asked of a second (a hedge: failover-origin.ts over
// endpoint-race.ts), and how many may be: pure, no I/O and no clock of its own (times and bytes are told).
//
// The wait is learnt: a high percentile of recent first bytes, but at most a few times their median, within a floor
// (a hedge sooner than that is noise, not a tail) and a ceiling (below ORIGIN_TIMEOUT_MS, so that a hedge comes before
// a failover would). Only answers that won are samples: a loser's first byte is never seen (it was cancelled), so the
// percentile is of how long a usable answer takes. The median bound is what keeps the wait on the ordinary answers:
// an endpoint slow on a fifth of its answers, those not hedged among the samples, puts the percentile among its slow
// ones, where a hedge comes too late to win, while the median stays with the fast kind. Until enough are known the wait
// is the ceiling: hedging ordinary answers at a guessed floor was measured (`npm run sim -- --slow-endpoint`) to hedge
// the first large reads of a run, whose losers cost the byte budget whole slices before it had earned any.
//
// The cap has two halves, both buckets that fill as the origin is used and empty as hedges are made:
// - requests: each request earns `requestShare` of a hedge (at most `requestBurst` banked), each hedge costs one, so
//   that over n requests at most requestBurst + requestShare × n are hedged. A hedge is one more GET or HEAD, which
//   S3-compatible stores charge little or nothing for; what costs is bytes, below.
// - bytes: every answer that won earns `byteShare` of its bytes (at most `byteBank` banked, from `byteAllowance` at
//   the start), and every loser is charged what it may have sent (loserCharge); a hedge is made only while the balance
//   is above zero. A loser is cancelled the moment the winner's head comes, before its own head came (fetch resolves
//   with the head, and the first head wins). What it sent meanwhile depends on which it was:
//   - the first request, lost to its hedge: it had been slow to start, so it sent little if anything: at most a
//     connection's first window (RFC 6928: ten segments), LOSER_CHARGE, and never more than the answer;
//   - the hedge, lost to the first request whose head came late after all: it went to an endpoint answering well, which
//     may have sent much of its answer into the buffers between (a connection's window, a proxy's queue) before the
//     close reached it. Measured in `npm run sim --slow-endpoint`, such losers cost whole answers of a few hundred KB:
//     it is charged the whole answer.
//   So the bytes charged ≤ byteAllowance + byteShare × origin bytes + one answer per hedge under way when the balance
//   ran out: egress never doubles, and over time the hedges' share of it stays near byteShare at most.

/** What a policy is told to keep to. */
export interface HedgeLimits {
  /** The percentile (0–1) of recent first bytes a request waits for before it is hedged. */
  percentile: number;
  /** And at most this many times their median. */
  medianFactor: number;
  /** First bytes remembered (the newest). */
  window: number;
  /** Below this many, the percentile is not trusted: the wait is the floor. */
  minSamples: number;
  floorMs: number;
  ceilingMs: number;
  requestShare: number;
  requestBurst: number;
  byteShare: number;
  byteAllowance: number;
  byteBank: number;
}

/** What a first request that lost to its hedge is taken to have sent: a connection's first window, rounded up. */
const LOSER_CHARGE = 16 * 1024;
/**
 * A slice of a known version (If-Match) longer than this is not hedged: its first byte is a small part of its time, and
 * a hedge that lost it would cost all of it (sliced objects' slices are 8 MiB by default).
 */
const HEDGE_MAX_PINNED_BYTES = 2 * 1024 * 1024;
const MIB = 1024 * 1024;
/** The longest wait before a hedge, whatever ORIGIN_TIMEOUT_MS: a first byte held a second is a tail for any store. */
const CEILING_MS = 1_000;

/**
 * The limits for an origin given `originTimeoutMs`: p99 of the last 128 first bytes, at most four times their median
 * (the ceiling until 16 are known), between 50 ms and 1 s (at most half the timeout); a quarter of requests (4 banked);
 * 2 % of the answers' bytes (1 MiB at the start, 64 MiB banked at most). A quarter, not the usual 5 %: a hedge is one more GET, which S3-compatible
 * stores charge little or nothing for, and an endpoint slow on a fifth of its answers needs that many to be cut;
 * what costs is bytes, which the byte budget holds to 2 %, so that with what a hedge under way may add the
 * hedges' egress stays under 3 % of the origin's.
 */
export function hedgeLimits(originTimeoutMs: number): HedgeLimits {
  const ceilingMs = Math.max(1, Math.min(CEILING_MS, Math.floor(originTimeoutMs / 2)));
  return {
    percentile: 0.99,
    medianFactor: 4,
    window: 128,
    minSamples: 16,
    floorMs: Math.min(50, ceilingMs),
    ceilingMs,
    requestShare: 0.25,
    requestBurst: 4,
    byteShare: 0.02,
    byteAllowance: MIB,
    byteBank: 64 * MIB,
  };
}

export class HedgePolicy {
  readonly limits: HedgeLimits;
  /** The newest first bytes, a ring of `window`. */
  readonly #samples: number[] = [];
  #next = 0;
  /** The wait for the samples as they are; undefined once a sample came since. */
  #threshold: number | undefined;
  #requestTokens: number;
  #byteBalance: number;

  constructor(limits: HedgeLimits) {
    if (!(limits.floorMs <= limits.ceilingMs)) throw new RangeError('expected floorMs ≤ ceilingMs');
    if (!(limits.percentile > 0 && limits.percentile <= 1)) throw new RangeError('expected a percentile in (0, 1]');
    if (!(limits.window >= 1 && limits.minSamples >= 1)) throw new RangeError('expected window and minSamples ≥ 1');
    this.limits = limits;
    this.#requestTokens = limits.requestBurst;
    this.#byteBalance = Math.min(limits.byteAllowance, limits.byteBank);
  }

  /** How long a request waits for a first byte before it is hedged (ms). */
  thresholdMs(): number {
    this.#threshold ??= this.#learnt();
    return this.#threshold;
  }

  /** An answer that won came `ms` after its own request went. */
  firstByte(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.limits.window;
    this.#threshold = undefined;
  }

  /** A request that could be hedged: it earns its share of one. */
  asked(): void {
    this.#requestTokens = Math.min(this.limits.requestBurst, this.#requestTokens + this.limits.requestShare);
  }

  /** Whether a hedge may be made now; if so, it is counted against the requests' cap. */
  take(): boolean {
    if (this.#requestTokens < 1 || this.#byteBalance <= 0) return false;
    this.#requestTokens -= 1;
    return true;
  }

  /** The answer that won carried `bytes`: the byte budget earns its share. */
  served(bytes: number): void {
    if (!Number.isFinite(bytes) || bytes <= 0) return;
    this.#byteBalance = Math.min(this.limits.byteBank, this.#byteBalance + this.limits.byteShare * bytes);
  }

  /** A loser is charged `bytes` (loserCharge): spent from the byte budget, which may go below zero until earned back. */
  lost(bytes: number): void {
    if (!Number.isFinite(bytes) || bytes <= 0) return;
    this.#byteBalance -= bytes;
  }

  /** The byte budget's balance: what hedges may still cost before the answers earn more. */
  byteBalance(): number {
    return this.#byteBalance;
  }

  #learnt(): number {
    const { minSamples, percentile, floorMs, ceilingMs } = this.limits;
    if (this.#samples.length < minSamples) return ceilingMs;
    const sorted = [...this.#samples].sort((a, b) => a - b);
    // Nearest rank: the smallest sample at least `percentile` of them are at or below.
    const rank = Math.max(0, Math.ceil(percentile * sorted.length) - 1);
    const median = sorted[Math.max(0, Math.ceil(sorted.length / 2) - 1)] ?? 0;
    // At most `medianFactor` times the median: an endpoint slow on a fifth of its answers puts the percentile among its
    // slow ones (those not hedged are samples too), where a hedge comes too late to win; the median stays with the
    // ordinary answers, and an answer several times slower than it is a tail whatever the percentile says.
    const bound = this.limits.medianFactor * median;
    const learnt = Math.min(sorted[rank] ?? ceilingMs, Number.isNaN(bound) ? ceilingMs : bound);
    return Math.min(ceilingMs, Math.max(floorMs, learnt));
  }
}

/** The bytes an answer that won carried: its declared body length; none for a HEAD, or one that declared none. */
export function answerBytes(method: 'GET' | 'HEAD', response: Response): number {
  if (method === 'HEAD' || response.body === null || !response.headers.has('content-length')) return 0;
  const declared = Number(response.headers.get('content-length'));
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : 0;
}

/**
 * Whether a request with these headers is worth a hedge: anything but a long slice of a known version (its If-Match or
 * If-Unmodified-Since, a Range longer than HEDGE_MAX_PINNED_BYTES). A first read's range may be answered by a small object whole: hedged.
 */
export function worthHedging(headers: {
  'if-match'?: string | undefined;
  'if-unmodified-since'?: string | undefined;
  range?: string | undefined;
}): boolean {
  // A version pinned by its ETag, or by its date and length (shared/slices/version-pin.ts).
  if (headers['if-match'] === undefined && headers['if-unmodified-since'] === undefined) return true;
  const span = /^bytes=(\d{1,15})-(\d{1,15})$/.exec(headers.range ?? '');
  return span === null || Number(span[2]) - Number(span[1]) + 1 <= HEDGE_MAX_PINNED_BYTES;
}

/**
 * What a loser cancelled when an answer of `winnerBytes` won is charged: the whole answer for a hedge (it went to an
 * endpoint answering well), else LOSER_CHARGE, never more than the answer.
 */
export function loserCharge(winnerBytes: number, hedge: boolean): number {
  return Math.max(0, hedge ? winnerBytes : Math.min(LOSER_CHARGE, winnerBytes));
}
