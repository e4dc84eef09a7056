// The R2 tier's store as the read path sees it: its lookups and removals R2's own (r2-cache.ts), its puts admitted
// first (shared/store/r2-admission.ts): an entry the policy keeps is put with the retention the policy gave it as its
// max-age; one it does not keep is read to its end and let go, as the Cache API lets go of a `no-store` answer, so the
// fill writing into it goes on for its client untouched. Every put spends the isolate's write budget.

import type { R2TierConfig } from '../../shared/config/r2-tier-config.ts';
import { readManifest } from '../../shared/slices/object-meta.ts';
import { isSliceKey } from '../../shared/slices/slice-plan.ts';
import type { FetchHistory } from '../../shared/store/fetch-history.ts';
import { admission, lookupPays, type Offer, type R2Prices, type Verdict } from '../../shared/store/r2-admission.ts';
import { fromStoredHeaders, MAX_RETENTION_S, originAt } from '../../shared/store/stored-entry.ts';
import type { WriteBudget } from '../../shared/store/write-budget.ts';
import { drain } from '../../shared/streams/drain.ts';
import { responseAsIs } from '../../shared/streams/response-as-is.ts';
import type { Storable, TierCache } from '../../shared/tier/tier-cache.ts';

/** What the admission weighs: the settings, the origin's egress price, what was seen, the budget, the time. */
export interface AdmissionParts {
  settings: R2TierConfig;
  egressPerTB: number;
  history: FetchHistory;
  budget: WriteBudget;
  now(): number;
}

/**
 * What a manifest stores: its headers alone (R2 bills an object's metadata as its size). A bound, not a count: a
 * manifest's headers are a few hundred bytes, and R2 keeps at most 8 KiB of metadata.
 */
const MANIFEST_BYTES = 8192;

/**
 * `store` with every put admitted by `parts`; lookups and removals as `store` makes them. The read path asks first
 * (TierCache.admits) before it streams a body into a put: the verdict it gets (the write budget taken with it) is the
 * one its put is kept by. A put asked about by nobody (a manifest, a Vary index: no body to stream) is weighed then.
 */
export function admittedCache(store: TierCache, parts: AdmissionParts): TierCache {
  /** Verdicts given to the read path, by key, until its put comes (or the next question about the same key). */
  const given = new Map<string, Verdict>();
  return {
    // A lookup only where a hit could save more than its get (r2-admission.ts lookupPays): else a miss, no get made.
    match: (request) => (lookupWorth(request.url, parts) ? store.match(request) : Promise.resolve(undefined)),
    delete: (request) => store.delete(request),
    admits(key, entry) {
      const verdict = admitted(key, entry, parts);
      given.set(key, verdict);
      return verdict.admit;
    },
    async put(request, response) {
      const stored = fromStoredHeaders(response.headers);
      const verdict =
        given.get(request.url) ??
        (stored === undefined
          ? { admit: false, why: 'not an entry of the read path' }
          : admitted(request.url, { ...stored, length: stored.body.length }, parts));
      given.delete(request.url);
      if (!verdict.admit) {
        await drain(response.body as ReadableStream<Uint8Array> | null);
        return;
      }
      const headers = new Headers(response.headers);
      headers.set('cache-control', `public, max-age=${verdict.retentionS}`);
      await store.put(request, responseAsIs(response.body, { status: response.status, headers }));
    },
  };
}

/** Whether the entry at `url` is worth a get, from what the isolate has seen of it. */
function lookupWorth(url: string, parts: AdmissionParts): boolean {
  const { settings } = parts;
  const prices: R2Prices = { ...settings, egressPerTB: parts.egressPerTB };
  return lookupPays(settings.admit, { slice: isSliceKey(url), seen: parts.history.of(url) }, prices);
}

/** What an entry offered is, as the read path describes it: its headers, its timing, the bytes it holds. */
type Described = Pick<Storable, 'headers' | 'meta' | 'length'>;

/** The policy's verdict on the entry at `url`, then the write budget's. */
function admitted(url: string, entry: Described, parts: AdmissionParts): Verdict {
  const offer = offerOf(url, entry, parts);
  if (offer === undefined) return { admit: false, why: 'its length is not known yet' };
  const { settings } = parts;
  const prices: R2Prices = { ...settings, egressPerTB: parts.egressPerTB };
  const verdict = admission(settings.admit, offer, prices);
  if (verdict.admit && !parts.budget.take(offer.now))
    return { admit: false, why: 'the write budget is spent for now (R2_WRITES_PER_HOUR)' };
  return verdict;
}

/**
 * The entry at `url` as the policy weighs it: a slice or a whole object stands for its own bytes; a sliced object's
 * manifest, which finds its slices without a fetch from the origin, for the slice a discovery would fetch. It may be
 * kept as long as MAX_RETENTION_S allows since its bytes came from the origin: past it, the purge records no longer
 * vouch for it (shared/store/stored-entry.ts).
 */
function offerOf(url: string, entry: Described, parts: AdmissionParts): Offer | undefined {
  const now = parts.now();
  const longestS = MAX_RETENTION_S - (now - originAt(entry.meta)) / 1000;
  const seen = parts.history.of(url);
  const manifest = readManifest(entry.headers);
  if (manifest !== undefined) {
    const slice = Math.min(manifest.size, manifest.sliceSize);
    return { savedBytes: slice, storedBytes: MANIFEST_BYTES, seen, now, longestS };
  }
  const bytes = entry.length;
  // A body whose length nothing says cannot be weighed: kept only where everything is (its put counts it first).
  if (bytes === undefined)
    return parts.settings.admit === 'all' ? { savedBytes: 0, storedBytes: 0, seen, now, longestS } : undefined;
  return { savedBytes: bytes, storedBytes: bytes, seen, now, longestS };
}
