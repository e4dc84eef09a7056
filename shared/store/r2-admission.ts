// Whether an entry enters the R2 tier, and for how long: kept only when keeping it is expected to cost less than the
// origin egress it saves (docs/costs.md "The R2 tier: when it pays"), at the configured prices, from what the shield
// has seen of the entry (its fetches from the origin and since when). Pure: values in, a verdict out.
//
// The formula, for an entry standing for S bytes (what one fetch of it from the origin moves) and storing B bytes:
//   λ = (n − 1) / span            the re-fetches seen per second (n fetches from the origin, the first `span`
//                                 whole seconds ago, at least MIN_SPAN_S: two fetches a second apart extrapolate to no
//                                 more than one an hour)
//   T = min(span, longest)        the retention: never longer than the rate was measured over, nor than the entry
//                                 may be kept (MAX_RETENTION_S, the purge records' bound, less its age)
//   saving(T) = λ · T · (S · egress − read)    each fetch avoided is the egress not paid, less the R2 read instead
//   cost(T)   = write + B · storage · T        one put, and the bytes kept for T
// It is admitted when n ≥ 2 and saving(T) > cost(T): never on a first fetch (nothing says it comes again), never
// where a read costs more than the egress it replaces. `all` admits every entry the tier may keep, for `longest`
// (Cache Reserve's and Perma-Cache's way: docs/costs.md), within the same write budget.

/** R2_TIER_ADMIT: `cost`, the formula above; `all`, every storable entry (still within R2_WRITES_PER_HOUR). */
export const R2_ADMISSIONS = ['cost', 'all'] as const;
export type R2Admission = (typeof R2_ADMISSIONS)[number];

/** The prices the formula weighs, in the units they are published in (shared/cost/prices.ts). */
export interface R2Prices {
  /** EGRESS_PRICE_PER_TB: the origin's egress, USD per 10^12 bytes. */
  egressPerTB: number;
  /** R2_STORAGE_PRICE_PER_GB_MONTH: Standard storage, USD per 10^9 bytes kept a month (30 days). */
  storagePerGbMonth: number;
  /** R2_WRITE_PRICE_PER_MILLION: Class A operations (a put), USD per million. */
  writePerMillion: number;
  /** R2_READ_PRICE_PER_MILLION: Class B operations (a get), USD per million. */
  readPerMillion: number;
}

/** What the shield has seen of one entry: its fetches from the origin (the one being stored included), the first when. */
export interface Seen {
  fetches: number;
  /** ms epoch. */
  first: number;
  /** Bytes the last fetch moved; absent: not known (an answer whose length nothing said). */
  bytes?: number;
}

/** One entry offered to the R2 tier. */
export interface Offer {
  /** Bytes one fetch of it from the origin moves (a slice, a whole object; a manifest: the slice it finds). */
  savedBytes: number;
  /** Bytes it keeps in R2 (its body; a manifest: its metadata alone). */
  storedBytes: number;
  /** What the shield has seen of it; undefined: nothing (a first fetch this isolate remembers none before). */
  seen: Seen | undefined;
  /** ms epoch. */
  now: number;
  /** The longest (s) it may be kept: what is left of MAX_RETENTION_S since its bytes came from the origin. */
  longestS: number;
}

export type Verdict =
  | { admit: true; retentionS: number; savingUSD: number; costUSD: number }
  | { admit: false; why: string };

/** The least span a rate is measured over (s): an hour. */
export const MIN_SPAN_S = 3600;
/** A month as R2 bills storage: 30 days (developers.cloudflare.com/r2/pricing/, "Storage usage"). */
const MONTH_S = 30 * 86_400;

/** Whether `offer` enters the R2 tier under `mode` at `prices`, and for how long. */
export function admission(mode: R2Admission, offer: Offer, prices: R2Prices): Verdict {
  if (!(offer.longestS >= 1)) return { admit: false, why: 'no time left to keep it' };
  if (mode === 'all') {
    const retentionS = Math.floor(offer.longestS);
    return { admit: true, retentionS, savingUSD: 0, costUSD: keepingCost(offer.storedBytes, retentionS, prices) };
  }
  const { seen } = offer;
  if (seen === undefined || seen.fetches < 2) return { admit: false, why: 'fetched once: nothing says it comes again' };
  const perFetch = fetchSaving(offer.savedBytes, prices);
  if (perFetch <= 0) return { admit: false, why: 'an R2 read costs more than the egress it saves' };
  const spanS = Math.max(MIN_SPAN_S, Math.floor((offer.now - seen.first) / 1000));
  const retentionS = Math.min(spanS, Math.floor(offer.longestS));
  // λ·T as the re-fetches seen times the share of their span kept: exactly n − 1 when T is the whole span.
  const savingUSD = (seen.fetches - 1) * (retentionS / spanS) * perFetch;
  const costUSD = keepingCost(offer.storedBytes, retentionS, prices);
  if (!(savingUSD > costUSD)) return { admit: false, why: 'keeping it would cost more than the egress it saves' };
  return { admit: true, retentionS, savingUSD, costUSD };
}

/** USD saved by each fetch from the origin an entry of `bytes` avoids: its egress, less the R2 read in its place. */
export function fetchSaving(bytes: number, prices: R2Prices): number {
  return (bytes * prices.egressPerTB) / 1e12 - prices.readPerMillion / 1e6;
}

/** USD of one put and `bytes` kept `seconds`. */
export function keepingCost(bytes: number, seconds: number, prices: R2Prices): number {
  return prices.writePerMillion / 1e6 + ((bytes / 1e9) * prices.storagePerGbMonth * seconds) / MONTH_S;
}

/**
 * The fewest fetches from the origin, over `spanS` seconds (≥ MIN_SPAN_S, ≤ `longestS`), past which an entry of
 * `bytes` (stored and saved alike) is admitted; Infinity where none is enough (a read costs more than the egress).
 */
export function fetchesToPay(bytes: number, spanS: number, prices: R2Prices): number {
  const perFetch = fetchSaving(bytes, prices);
  if (perFetch <= 0) return Number.POSITIVE_INFINITY;
  // λ·T·perFetch > cost with T = span: (n − 1)·perFetch > cost(span).
  return Math.max(2, Math.floor(keepingCost(bytes, spanS, prices) / perFetch) + 2);
}

/** What a lookup in R2 is of: a slice (its bytes a slice's), or an object's entry (its manifest or whole entry). */
export interface Wanted {
  slice: boolean;
  /** What the shield has seen of it; undefined: nothing. */
  seen: Seen | undefined;
}

/**
 * Whether an entry is worth looking up in R2 under `mode`: the get is paid for whatever it finds, so it is made only
 * where a hit could save more than it. Under `all` anything may be there: every entry is looked up. Under `cost` an
 * object's entry is admitted only once fetched from the origin at least twice, so one this isolate has never seen
 * fetched is rarely there (at most from before its isolate began, or another isolate's): its first miss goes to the
 * origin, as the first miss of anything does, and its next ones look it up. Nor is one looked up whose last fetch
 * moved too few bytes for a fetch saved to pay for a get (fetchSaving): it is never admitted. A slice is always looked
 * up: its object's entry was (the slice is read by it), and a slice's bytes pay for the get at any share of hits above
 * a hundredth or so.
 */
export function lookupPays(mode: R2Admission, wanted: Wanted, prices: R2Prices): boolean {
  if (mode === 'all' || wanted.slice) return true;
  const { seen } = wanted;
  if (seen === undefined) return false;
  return seen.bytes === undefined || fetchSaving(seen.bytes, prices) > 0;
}
