// What the shield has seen of each entry it fetched from the origin (the R2 tier's admission reads it,
// r2-admission.ts): how often, and since when, by the key the entry is stored under. Bounded: past MAX_SEEN entries,
// the one seen longest ago is forgotten (a Map keeps insertion order; a fetch moves its entry to the end). Pure: the
// time is passed in; an isolate keeps one.

import type { Seen } from './r2-admission.ts';

/** Entries remembered: each a key of at most a few hundred bytes and two numbers, a few MB in all. */
const MAX_SEEN = 16_384;

export class FetchHistory {
  private readonly seen = new Map<string, Seen>();
  private readonly limit: number;

  constructor(limit: number = MAX_SEEN) {
    this.limit = Math.max(1, limit);
  }

  /** One more fetch of `key` from the origin at `now` (ms epoch). */
  fetched(key: string, now: number): void {
    const known = this.seen.get(key);
    this.seen.delete(key);
    this.seen.set(key, { fetches: (known?.fetches ?? 0) + 1, first: Math.min(known?.first ?? now, now) });
    if (this.seen.size > this.limit) this.seen.delete(this.seen.keys().next().value as string);
  }

  /** What was seen of `key`; undefined when nothing (never fetched, or forgotten). */
  of(key: string): Seen | undefined {
    return this.seen.get(key);
  }

  get size(): number {
    return this.seen.size;
  }
}
