// When a stored response that is no longer fresh may still be used (RFC 9111 §4.2.4, RFC 5861), and what
// a tier does with it: serve it and refresh in the background, revalidate first, or fall back to it.

import { currentAge, type EntryMeta, MAX_RETENTION_S } from '../store/stored-entry.ts';
import { type CacheControl, directiveFields, directiveSeconds, hasDirective } from './cache-control.ts';

export interface StalePolicy {
  /** Seconds past freshness during which the stale copy is served while a refresh runs (RFC 5861 §3). */
  whileRevalidate: number;
  /** Seconds past freshness during which the stale copy stands in for an origin error (RFC 5861 §4). */
  ifError: number;
  /** No stale use at all, and revalidation before every use once stale (or always, for no-cache). */
  mustRevalidate: boolean;
}

export interface StaleDefaults {
  whileRevalidate: number;
  ifError: number;
}

export type StaleUse = 'fresh' | 'serve-stale-and-refresh' | 'revalidate';

/**
 * The stale policy a response's cache control gives a shared cache, with our defaults where it
 * is silent. `cc` is the effective cache control: a targeted field's when one applies
 * (targeted-cache-control.ts, RFC 9213 §2.2), else Cache-Control.
 */
export function stalePolicy(cc: CacheControl, defaults: StaleDefaults): StalePolicy {
  // §5.2.2.2 must-revalidate, §5.2.2.8 proxy-revalidate, §5.2.2.10 s-maxage ("incorporates the
  // semantics of the proxy-revalidate directive"), and §5.2.2.4 no-cache forbid serving stale.
  // Only unqualified no-cache: the qualified form restricts just the fields it names, and those
  // are never stored (freshness.ts, `strip`), so the rest may be served stale like any response.
  const forbidden =
    ['must-revalidate', 'proxy-revalidate', 's-maxage'].some((name) => hasDirective(cc, name)) ||
    directiveFields(cc, 'no-cache') === true;
  if (forbidden) return { whileRevalidate: 0, ifError: 0, mustRevalidate: true };
  // RFC 5861 §3, §4: the argument is delta-seconds; an invalid one (`=soon`, `=-1`, `=1.5`, none)
  // is ignored, as an unrecognised directive would be (RFC 9111 §5.2.3): our default applies.
  return {
    whileRevalidate: directiveSeconds(cc, 'stale-while-revalidate') ?? defaults.whileRevalidate,
    ifError: directiveSeconds(cc, 'stale-if-error') ?? defaults.ifError,
    mustRevalidate: false,
  };
}

/**
 * How long past its freshness a stale entry is kept, whatever its stale windows, so that it can
 * still be revalidated with a conditional request (a 304 instead of the whole body again).
 * Varnish calls this "keep".
 */
export const KEEP_FOR_REVALIDATION = 3600;

/**
 * Seconds a tier should keep an entry: its freshness left plus the longest stale window or keep,
 * at most MAX_RETENTION_S (a purge record's lifetime: past it no purge list vouches for the entry).
 */
export function retention(lifetime: number, age: number, policy: StalePolicy): number {
  return Math.min(
    MAX_RETENTION_S,
    Math.max(1, lifetime - age + Math.max(policy.whileRevalidate, policy.ifError, KEEP_FOR_REVALIDATION)),
  );
}

/**
 * What to do with a stored entry now. `noStale` is set for a request that must not be answered
 * stale: the edge's own revalidation of its entry, so that the shield never hands its stale
 * copy back as if it were fresh.
 */
export function staleUse(meta: EntryMeta, now: number, noStale = false): StaleUse {
  const overdue = currentAge(meta, now) - meta.lifetime;
  if (overdue < 0) return 'fresh';
  if (!noStale && !meta.mustRevalidate && overdue < meta.whileRevalidate) return 'serve-stale-and-refresh';
  return 'revalidate';
}

/** Whether the stale entry may answer in place of an origin error (RFC 5861 §4). */
export function usableOnError(meta: EntryMeta, now: number): boolean {
  return !meta.mustRevalidate && currentAge(meta, now) - meta.lifetime < meta.ifError;
}

/**
 * Whether the stale entry may answer when the tier is disconnected from the origin (it could
 * not be reached, or did not answer in time): RFC 9111 §4.2.4 "A cache SHOULD NOT generate a
 * stale response unless it is disconnected or doing so is explicitly permitted by the client or
 * origin server", and never when "prohibited by an explicit in-protocol directive (e.g., by a
 * no-cache response directive, a must-revalidate response directive, or an applicable s-maxage
 * or proxy-revalidate response directive)", which is what `mustRevalidate` records. No window
 * of its own: an entry is kept at most its stale windows or KEEP_FOR_REVALIDATION past its
 * freshness (retention), and that bounds how stale a disconnected answer can be; `_now` is
 * taken for the same shape as usableOnError.
 */
export function usableWhenDisconnected(meta: EntryMeta, _now: number): boolean {
  return !meta.mustRevalidate;
}
