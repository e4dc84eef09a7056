// The sim's small Cache API (`npm run sim --r2-tier`, docs/sim.md): a worker's named caches each bounded to a budget of
// bytes, the entries used longest ago deleted past it, as Cloudflare's cache evicts the long tail of a busy location.
// Workerd's local Cache API never evicts; the harness wraps the worker (small-cache-edge.ts, small-cache-shield.ts),
// and the worker never knows: its `caches.open` hands back the bounded cache.

/** The part of a Cache the tiers use (shared/tier/tier-cache.ts TierCache). */
export interface CacheLike {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
  delete(request: Request): Promise<boolean>;
}

/** What an entry without a body (a manifest, a Vary index) is counted as: its headers. */
const HEADERS_BYTES = 1024;

/** A cache of at most `budget()` bytes (bodies and headers), evicting the entry used longest ago first. */
export class BoundedCache implements CacheLike {
  private readonly inner: CacheLike;
  private readonly budget: () => number;
  /** Entries by URL, the one used longest ago first (a Map keeps insertion order; a use moves an entry to the end). */
  private readonly entries = new Map<string, number>();
  private total = 0;
  /** Entries this cache deleted to stay within its budget. */
  evicted = 0;

  constructor(inner: CacheLike, budget: () => number) {
    this.inner = inner;
    this.budget = budget;
  }

  async match(request: Request): Promise<Response | undefined> {
    const found = await this.inner.match(request);
    const bytes = this.entries.get(request.url);
    if (found !== undefined && bytes !== undefined) {
      this.entries.delete(request.url);
      this.entries.set(request.url, bytes);
    }
    return found;
  }

  async put(request: Request, response: Response): Promise<void> {
    const bytes = entryBytes(response.headers);
    await this.inner.put(request, response);
    this.forget(request.url);
    this.entries.set(request.url, bytes);
    this.total += bytes;
    for (const url of [...this.entries.keys()]) {
      if (this.total <= this.budget()) break;
      if (url === request.url) continue;
      this.forget(url);
      this.evicted++;
      void this.inner.delete(new Request(url)).catch(() => false);
    }
  }

  async delete(request: Request): Promise<boolean> {
    this.forget(request.url);
    return this.inner.delete(request);
  }

  private forget(url: string): void {
    const bytes = this.entries.get(url);
    if (bytes === undefined) return;
    this.entries.delete(url);
    this.total -= bytes;
  }
}

/**
 * Every cache this worker opens by a name `budgetOf` bounds, bounded to that many bytes (read when a put needs it: the
 * budget comes with the first request's bindings); the others as they are.
 */
export function boundCaches(budgetOf: (name: string) => number | undefined): void {
  const storage = (globalThis as unknown as { caches: { open(name: string): Promise<CacheLike> } }).caches;
  const open = storage.open.bind(storage);
  const bounded = new Map<string, Promise<CacheLike>>();
  storage.open = (name) => {
    if (budgetOf(name) === undefined) return open(name);
    let cache = bounded.get(name);
    if (cache === undefined) {
      cache = open(name).then((inner) => new BoundedCache(inner, () => budgetOf(name) ?? Number.POSITIVE_INFINITY));
      bounded.set(name, cache);
    }
    return cache;
  };
}

/** The bytes an entry to be put holds: the length the read path counted it at (its envelope), its headers besides. */
function entryBytes(headers: Headers): number {
  const counted = /(?:^|,)\s*len=(\d{1,16})\s*(?:,|$)/.exec(headers.get('x-tiercache-entry') ?? '');
  const declared = headers.get('content-length');
  const body =
    counted !== null ? Number(counted[1]) : declared !== null && /^\d+$/.test(declared) ? Number(declared) : 0;
  return body + HEADERS_BYTES;
}
