// What a shield isolate remembers of the renditions whose playlists passed through it (docs/warming.md "The next
// segments at the shield"): each rendition's segments in order, found again from any of its segments, bounded in
// renditions and in bytes, the least recently used forgotten first. A playlist learned again at another version (a
// live playlist's update) replaces its renditions, keeping what was seen of their segments. Pure: no I/O, no clock.

/** How many renditions, and how many bytes of segment keys, a memo holds at most (RENDITION_LIMITS: the shield's). */
export interface MemoLimits {
  renditions: number;
  bytes: number;
}

/**
 * The shield's: 512 renditions (a few hundred titles being watched at once, each at one or two renditions per
 * isolate), and 4 MiB of keys (a two-hour rendition of 2 s segments is 3,600 keys of some 60 bytes: 0.4 MiB): a small
 * share of an isolate's 128 MB.
 */
export const RENDITION_LIMITS: MemoLimits = { renditions: 512, bytes: 4 * 1024 * 1024 };

/** A key's cost in the memo: its characters (two bytes each in V8) and the entry around it. */
const ENTRY_BYTES = 64;

/** One rendition: its segments' keys in order, and what this isolate saw of its viewers. */
export interface Rendition {
  /** The playlist it came from (with its rendition's number, for a DASH manifest's several). */
  readonly key: string;
  readonly segments: readonly string[];
  /** How long a segment lasts at most (rendition-order.ts RenditionOrder.targetMs). */
  readonly targetMs: number;
  /** When a client last read each of its recent segments (ms), at most RECENT_READS of them. */
  readonly reads: Map<string, number>;
  /** When a client last read any of its segments; -Infinity before any. */
  lastReadAt: number;
}

/** Reads remembered per rendition: enough to tell a player filling its buffer from one reading in real time. */
const RECENT_READS = 16;

interface Learned {
  version: string;
  renditions: Rendition[];
  bytes: number;
}

interface Place {
  rendition: Rendition;
  index: number;
}

export class RenditionMemo {
  readonly #limits: MemoLimits;
  /** By playlist key, least recently used first (a Map keeps insertion order; a use moves one to the end). */
  readonly #playlists = new Map<string, Learned>();
  readonly #places = new Map<string, Place>();
  /** Segment keys known stored at this tier: read by a client or prefetched here. */
  readonly #stored = new Set<string>();
  #bytes = 0;
  #renditions = 0;

  constructor(limits: MemoLimits) {
    this.#limits = limits;
  }

  /** The version the playlist was learned at, undefined when it is not remembered (nothing to learn when it matches). */
  version(playlist: string): string | undefined {
    return this.#playlists.get(playlist)?.version;
  }

  /**
   * The playlist's renditions, at `version`, in place of any learned before; the reads of a rendition learned before
   * (the same number) are kept. A playlist larger than the memo's bytes is not learned.
   */
  learn(playlist: string, version: string, orders: readonly { segments: readonly string[]; targetMs: number }[]): void {
    const before = this.#playlists.get(playlist);
    const storedBefore = (before?.renditions ?? []).flatMap((r) => r.segments.filter((key) => this.#stored.has(key)));
    this.#forget(playlist);
    const renditions = orders.map(({ segments, targetMs }, i) => {
      const was = before?.renditions[i];
      return {
        key: `${playlist}#${i}`,
        segments: [...segments],
        targetMs,
        reads: was?.reads ?? new Map<string, number>(),
        lastReadAt: was?.lastReadAt ?? Number.NEGATIVE_INFINITY,
      };
    });
    const bytes = renditions.reduce((sum, r) => sum + r.segments.reduce((n, key) => n + keyBytes(key), 0), 0);
    if (renditions.length === 0 || renditions.length > this.#limits.renditions || bytes > this.#limits.bytes) return;
    while (this.#renditions + renditions.length > this.#limits.renditions || this.#bytes + bytes > this.#limits.bytes)
      this.#forget(this.#playlists.keys().next().value as string);
    this.#playlists.set(playlist, { version, renditions, bytes });
    this.#bytes += bytes;
    this.#renditions += renditions.length;
    for (const rendition of renditions)
      for (const [index, key] of rendition.segments.entries()) this.#places.set(key, { rendition, index });
    for (const key of storedBefore) this.stored(key);
  }

  /** The rendition `segment` belongs to and its place in it (its playlist then the most recently used). */
  locate(segment: string): Place | undefined {
    const place = this.#places.get(segment);
    if (place === undefined) return undefined;
    const playlist = place.rendition.key.slice(0, place.rendition.key.lastIndexOf('#'));
    const learned = this.#playlists.get(playlist);
    if (learned !== undefined) {
      this.#playlists.delete(playlist);
      this.#playlists.set(playlist, learned);
    }
    return place;
  }

  /** A client read `segment` of `rendition` at `at`: remembered as its latest read, and as stored here. */
  read(rendition: Rendition, segment: string, at: number): void {
    rendition.reads.delete(segment);
    rendition.reads.set(segment, at);
    if (rendition.reads.size > RECENT_READS) rendition.reads.delete(rendition.reads.keys().next().value as string);
    rendition.lastReadAt = Math.max(rendition.lastReadAt, at);
    this.stored(segment);
  }

  /** `segment` is stored at this tier (read, or prefetched): not to be prefetched again while it is remembered. */
  stored(segment: string): void {
    if (this.#places.has(segment)) this.#stored.add(segment);
  }

  isStored(segment: string): boolean {
    return this.#stored.has(segment);
  }

  /** What the memo holds: renditions, segments and the bytes reckoned for their keys. */
  get size(): { renditions: number; segments: number; bytes: number } {
    return { renditions: this.#renditions, segments: this.#places.size, bytes: this.#bytes };
  }

  #forget(playlist: string): void {
    const learned = this.#playlists.get(playlist);
    if (learned === undefined) return;
    this.#playlists.delete(playlist);
    this.#bytes -= learned.bytes;
    this.#renditions -= learned.renditions.length;
    for (const rendition of learned.renditions)
      for (const key of rendition.segments) {
        if (this.#places.get(key)?.rendition !== rendition) continue;
        this.#places.delete(key);
        this.#stored.delete(key);
      }
  }
}

function keyBytes(key: string): number {
  return key.length * 2 + ENTRY_BYTES;
}
