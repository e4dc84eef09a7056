// Workers KV as the topology runner models it, pure: one namespace every location reads, where a write is seen at
// once at the location that made it and `propagationMs` later everywhere else ("changes may take up to 60 seconds or
// more to be visible in other global network locations", developers.cloudflare.com/kv/concepts/how-kv-works/), and
// every operation counted per calling isolate, priced as KV prices them (a delete as a write,
// developers.cloudflare.com/kv/platform/pricing/). Time is passed in; nothing here reads a clock.

/** Who asks: the location (visibility is per location) and the isolate there (operations are counted per isolate). */
export interface KvCaller {
  location: string;
  isolate: string;
}

export interface KvPutOptions {
  /** Seconds until the key expires, on the model's clock: honoured; KV refuses less than 60. */
  expirationTtl?: number;
  /** Absolute expiry, seconds since the epoch: honoured. */
  expiration?: number;
  metadata?: unknown;
}

export interface KvListOptions {
  prefix?: string;
  /** At most 1,000, as KV (the default too). */
  limit?: number;
  cursor?: string;
}

interface KvListedKey {
  name: string;
  /** Seconds since the epoch, when the key expires. */
  expiration?: number;
  metadata?: unknown;
}

export interface KvListAnswer {
  keys: KvListedKey[];
  list_complete: boolean;
  cursor?: string;
}

export interface KvEntry {
  value: string;
  metadata: unknown;
}

/** Operations counted, by KV's price classes. */
export interface KvCounts {
  reads: number;
  writes: number;
  deletes: number;
  lists: number;
}

/** KV's limits the model enforces (developers.cloudflare.com/kv/platform/limits/): a product bug shows here first. */
const KV_LIST_LIMIT = 1000;
const KV_MIN_TTL_S = 60;
const KV_METADATA_MAX_BYTES = 1024;
const KV_KEY_MAX_BYTES = 512;

/** One write of a key: its value (undefined: a delete), where and when it was made, and when it expires (ms). */
interface Version {
  value: string | undefined;
  metadata: unknown;
  location: string;
  at: number;
  expiresAt: number | undefined;
}

const CURSOR_PREFIX = 'after:';
const encoder = new TextEncoder();

export class KvModel {
  private readonly keys = new Map<string, Version[]>();
  private readonly counts = new Map<string, KvCounts & KvCaller>();

  readonly propagationMs: number;

  constructor(propagationMs: number) {
    this.propagationMs = propagationMs;
    if (!(propagationMs >= 0)) throw new RangeError(`expected a propagation delay ≥ 0 ms, got ${propagationMs}`);
  }

  get(caller: KvCaller, key: string, now: number): KvEntry | null {
    checkKey(key);
    this.count(caller).reads += 1;
    const version = this.visible(caller, key, now);
    return version === undefined ? null : { value: version.value as string, metadata: version.metadata ?? null };
  }

  put(caller: KvCaller, key: string, value: string, options: KvPutOptions, now: number): void {
    checkKey(key);
    const metadata = options.metadata === undefined ? undefined : checkedMetadata(options.metadata);
    this.count(caller).writes += 1;
    this.record(key, { value, metadata, location: caller.location, at: now, expiresAt: expiresAt(options, now) });
  }

  delete(caller: KvCaller, key: string, now: number): void {
    checkKey(key);
    this.count(caller).deletes += 1;
    this.record(key, {
      value: undefined,
      metadata: undefined,
      location: caller.location,
      at: now,
      expiresAt: undefined,
    });
  }

  /** Keys in KV's order (lexicographic by UTF-8 bytes), from after the cursor, as the caller's location sees them. */
  list(caller: KvCaller, options: KvListOptions, now: number): KvListAnswer {
    const limit = options.limit ?? KV_LIST_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > KV_LIST_LIMIT)
      throw new RangeError(`expected a list limit of 1–${KV_LIST_LIMIT}, got ${limit}`);
    const after = cursorName(options.cursor);
    const prefix = options.prefix ?? '';
    this.count(caller).lists += 1;
    const names = [...this.keys.keys()]
      .filter((name) => name.startsWith(prefix) && (after === undefined || compareUtf8(name, after) > 0))
      .sort(compareUtf8);
    const keys: KvListedKey[] = [];
    let last: string | undefined;
    for (const name of names) {
      const version = this.visible(caller, name, now);
      if (version === undefined) continue;
      if (keys.length === limit) return { keys, list_complete: false, cursor: `${CURSOR_PREFIX}${last}` };
      keys.push(listed(name, version));
      last = name;
    }
    return { keys, list_complete: true };
  }

  /** Every operation so far, summed. */
  totals(): KvCounts {
    const sum: KvCounts = { reads: 0, writes: 0, deletes: 0, lists: 0 };
    for (const counts of this.counts.values()) {
      sum.reads += counts.reads;
      sum.writes += counts.writes;
      sum.deletes += counts.deletes;
      sum.lists += counts.lists;
    }
    return sum;
  }

  /** Operations per calling isolate, in the order isolates first asked. */
  byIsolate(): (KvCounts & KvCaller)[] {
    return [...this.counts.values()].map((counts) => ({ ...counts }));
  }

  /** The newest write of `key` the caller's location sees at `now`; undefined when that is a delete or expired. */
  private visible(caller: KvCaller, key: string, now: number): Version | undefined {
    const versions = this.keys.get(key) ?? [];
    for (let index = versions.length - 1; index >= 0; index--) {
      const version = versions[index] as Version;
      if (!seenAt(version, caller.location, now, this.propagationMs)) continue;
      if (version.value === undefined) return undefined;
      if (version.expiresAt !== undefined && now >= version.expiresAt) return undefined;
      return version;
    }
    return undefined;
  }

  /**
   * Adds a write, kept in the order of `at` (a later write wins, as KV's last-writer-wins); the versions older than
   * the newest one every location sees are dropped, since no read can reach them any more.
   */
  private record(key: string, version: Version): void {
    const versions = [...(this.keys.get(key) ?? []), version].sort((a, b) => a.at - b.at);
    let oldestNeeded = 0;
    versions.forEach((candidate, index) => {
      if (candidate.at + this.propagationMs <= version.at) oldestNeeded = index;
    });
    this.keys.set(key, versions.slice(oldestNeeded));
  }

  private count(caller: KvCaller): KvCounts & KvCaller {
    const id = `${caller.location}/${caller.isolate}`;
    let counts = this.counts.get(id);
    if (counts === undefined) {
      counts = { location: caller.location, isolate: caller.isolate, reads: 0, writes: 0, deletes: 0, lists: 0 };
      this.counts.set(id, counts);
    }
    return counts;
  }
}

/** At its own location a write is seen at once; elsewhere, `propagationMs` after it was made. */
function seenAt(version: Version, location: string, now: number, propagationMs: number): boolean {
  return now >= (version.location === location ? version.at : version.at + propagationMs);
}

function expiresAt(options: KvPutOptions, now: number): number | undefined {
  if (options.expirationTtl !== undefined) {
    if (!(options.expirationTtl >= KV_MIN_TTL_S))
      throw new RangeError(`expected an expirationTtl ≥ ${KV_MIN_TTL_S} s, got ${options.expirationTtl}`);
    return now + options.expirationTtl * 1000;
  }
  return options.expiration === undefined ? undefined : options.expiration * 1000;
}

function listed(name: string, version: Version): KvListedKey {
  return {
    name,
    ...(version.expiresAt === undefined ? {} : { expiration: Math.floor(version.expiresAt / 1000) }),
    ...(version.metadata === undefined ? {} : { metadata: version.metadata }),
  };
}

function checkKey(key: string): void {
  const bytes = encoder.encode(key).length;
  if (bytes === 0 || bytes > KV_KEY_MAX_BYTES || key === '.' || key === '..')
    throw new RangeError(`expected a KV key of 1–${KV_KEY_MAX_BYTES} bytes, not . or .., got ${JSON.stringify(key)}`);
}

/** Metadata as KV keeps it: its JSON, at most 1,024 bytes, read back as a copy. */
function checkedMetadata(metadata: unknown): unknown {
  const json = JSON.stringify(metadata);
  if (json === undefined) throw new TypeError('expected metadata that JSON can say');
  const bytes = encoder.encode(json).length;
  if (bytes > KV_METADATA_MAX_BYTES)
    throw new RangeError(`expected metadata of at most ${KV_METADATA_MAX_BYTES} bytes, got ${bytes}`);
  return JSON.parse(json) as unknown;
}

function cursorName(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  if (!cursor.startsWith(CURSOR_PREFIX)) throw new RangeError(`expected a cursor this namespace gave, got ${cursor}`);
  return cursor.slice(CURSOR_PREFIX.length);
}

/** KV lists keys "in lexicographically sorted order" of their UTF-8 bytes (developers.cloudflare.com/kv/api/list-keys/). */
export function compareUtf8(a: string, b: string): number {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const difference = (left[index] as number) - (right[index] as number);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}
