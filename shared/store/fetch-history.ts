// What the shield has seen of each entry it fetched from the origin (the R2 tier's admission reads it,
// r2-admission.ts): how often, and since when, by the key the entry is stored under. Fetches of one key within
// ONE_READ_MS of the last are one: the asks of a single read (a sliced object's discovery made again by each slice
// that arrives before its manifest is kept, the same miss collapsed from several requests) are not the Cache API
// forgetting it. Bounded: past MAX_SEEN entries, the one seen longest ago is forgotten (a Map keeps insertion order; a
// fetch moves its entry to the end). It keeps what the last fetch moved too, so that the tier need not look up in R2
// an entry whose hit would save less than the get (r2-admission.ts lookupPays). Pure: the time is passed in; an
// isolate keeps one.

import type { Seen } from './r2-admission.ts';

/** Entries remembered: each a key of at most a few hundred bytes and three numbers, a few MB in all. */
const MAX_SEEN = 16_384;
/** Fetches this close to the last of the same key count as that one (ms). */
export const ONE_READ_MS = 10_000;

interface Record extends Seen {
  /** ms epoch of the last fetch counted or merged into it. */
  last: number;
}

export class FetchHistory {
  private readonly seen = new Map<string, Record>();
  private readonly limit: number;

  constructor(limit: number = MAX_SEEN) {
    this.limit = Math.max(1, limit);
  }

  /**
   * One more fetch of `key` from the origin at `now` (ms epoch), moving `bytes` (undefined: not known); within
   * ONE_READ_MS of the last, the same one.
   */
  fetched(key: string, now: number, bytes?: number): void {
    const known = this.seen.get(key);
    this.seen.delete(key);
    const again = known !== undefined && now - known.last >= ONE_READ_MS;
    this.seen.set(key, {
      fetches: (known?.fetches ?? 0) + (known === undefined || again ? 1 : 0),
      first: Math.min(known?.first ?? now, now),
      last: Math.max(known?.last ?? now, now),
      ...(bytes !== undefined ? { bytes } : known?.bytes !== undefined ? { bytes: known.bytes } : {}),
    });
    if (this.seen.size > this.limit) this.seen.delete(this.seen.keys().next().value as string);
  }

  /** What was seen of `key`; undefined when nothing (never fetched, or forgotten). */
  of(key: string): Seen | undefined {
    const known = this.seen.get(key);
    if (known === undefined) return undefined;
    const { fetches, first, bytes } = known;
    return bytes === undefined ? { fetches, first } : { fetches, first, bytes };
  }

  get size(): number {
    return this.seen.size;
  }
}
