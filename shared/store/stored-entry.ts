// How a response is kept in a tier's Cache API namespace: an envelope the platform sees as a plain
// `public, max-age=<retention>` over opaque bytes, the origin's headers and our timing inside it.

export interface EntryMeta {
  /** ms epoch at which this tier stored the response. */
  storedAt: number;
  /** Age (s) the response already had when stored (RFC 9111 §4.2.3 corrected initial age). */
  initialAge: number;
  /** Freshness lifetime (s) this tier computed when storing. */
  lifetime: number;
  /** Stale windows (s) and whether stale use is forbidden (shared/http/stale.ts). */
  whileRevalidate: number;
  ifError: number;
  mustRevalidate: boolean;
  /**
   * ms epoch at which these bytes last came from the origin, or were confirmed by it (a 304),
   * at whichever tier: what a purge is judged by, so that a copy refilled from a tier that had
   * not read the purge yet is still the copy it purged. Absent (entries stored before it was
   * kept): `storedAt`.
   */
  originAt?: number;
}

/**
 * Longest (s) a tier keeps an entry, whatever its freshness and stale windows, and how long a
 * purge record lives (shared/purge/purge-rules.ts): a purge is judged by `originAt`, and past a
 * record's lifetime the purge list no longer vouches for an entry (its lookups count it
 * purged), so the platform is never asked to hold one longer.
 */
export const MAX_RETENTION_S = 31 * 86_400;

/** When the entry's bytes last came from the origin (EntryMeta.originAt). */
export function originAt(meta: Pick<EntryMeta, 'storedAt' | 'originAt'>): number {
  return meta.originAt ?? meta.storedAt;
}

/** Our own timing (EntryMeta) travels in this one internal header. */
const META = 'x-tiercache-entry';
/**
 * The platform cache decides retention from Cache-Control/Expires and rewrites Date and Age on the
 * way in (Miniflare does; so may Cloudflare's edge). Our freshness decisions must not depend on
 * that, so these are kept under internal names and restored on the way out: what the platform
 * would act on. Content-Encoding too: the local Cache API decodes a stored `br` body on the way
 * out and forgets the length of an encoded one, so the platform only ever sees opaque bytes, and
 * the header is restored with them.
 */
const KEPT = ['cache-control', 'expires', 'date', 'content-encoding'] as const;
const keptName = (name: string): string => `x-tiercache-origin-${name}`;
/** Never stored: per-hop, per-request or per-client. */
const NOT_STORED = [
  'age',
  'server-timing',
  'set-cookie',
  'cf-cache-status',
  'connection',
  'keep-alive',
  'transfer-encoding',
];

/**
 * An entry tagged for the platform's purge (shared/purge/zone-tags.ts) carries our tags as its `Cache-Tag`, the header
 * Cloudflare's purge by tag reads (developers.cloudflare.com/cache/how-to/purge-cache/purge-by-tags/); the object's
 * own Cache-Tag is kept under this name and restored on the way out, so a client and the records' tag purge see it
 * exactly as the origin sent it.
 */
const OWN_CACHE_TAG = keptName('cache-tag');
const ZONE_TAGGED = 'x-tiercache-zone-tagged';

/** Gives stored headers (about to be put) the platform's `tags` as their Cache-Tag (OWN_CACHE_TAG); in place. */
export function tagForPlatform(stored: Headers, tags: readonly string[]): void {
  if (tags.length === 0 || stored.has(ZONE_TAGGED)) return;
  const own = stored.get('cache-tag');
  if (own !== null) stored.set(OWN_CACHE_TAG, own);
  stored.set('cache-tag', tags.join(','));
  stored.set(ZONE_TAGGED, '1');
}

/**
 * Headers for the stored copy; `retention` (s) is how long the platform should keep it, and
 * `length` the bytes its body holds (counted before the entry may be used; undefined = unknown).
 */
export function toStoredHeaders(headers: Headers, meta: EntryMeta, retention: number, body: StoredBody = {}): Headers {
  const stored = new Headers(headers);
  for (const name of NOT_STORED) stored.delete(name);
  for (const name of KEPT) {
    const value = stored.get(name);
    stored.delete(name);
    if (value !== null) stored.set(keptName(name), value);
  }
  stored.set('cache-control', `public, max-age=${Math.max(1, Math.ceil(retention))}`);
  const len = body.length === undefined ? '' : `, len=${body.length}`;
  const fill = body.fill === undefined ? '' : `, fill=${body.fill}`;
  const status = body.status === undefined ? '' : `, st=${body.status}`;
  const org = meta.originAt === undefined ? '' : `, org=${Math.round(meta.originAt)}`;
  stored.set(
    META,
    `stored=${Math.round(meta.storedAt)}, age=${round3(meta.initialAge)}, life=${meta.lifetime}, swr=${meta.whileRevalidate}, sie=${meta.ifError}, mr=${meta.mustRevalidate ? 1 : 0}${org}${len}${fill}${status}`,
  );
  return stored;
}

/** What the envelope says of the stored body. */
export interface StoredBody {
  /** Bytes it holds, counted before the entry could be used; undefined when the origin gave no length. */
  length?: number | undefined;
  /** Which fill stored it (a client reading the rest of a fill from the store must meet that fill, not a later one). */
  fill?: number | undefined;
  /** The response's status when it is not 200: the platform is handed PLATFORM_STATUS. */
  status?: number | undefined;
}

/**
 * The status the platform's cache is handed for every stored response. The Cache API keeps only
 * the statuses it deems cacheable (locally: no 204, 400, 403, 500, 503, 599 …, dropped
 * silently), while RFC 9111 §3 lets any final status be stored; the real one travels in the
 * envelope (StoredBody.status).
 */
export const PLATFORM_STATUS = 200;

/** A stored entry unpacked: the origin's headers, our timing, and what it says of its body. */
export interface Unpacked {
  headers: Headers;
  meta: EntryMeta;
  body: StoredBody;
}

/** The response headers as the origin sent them plus our timing; undefined if not our envelope. */
export function fromStoredHeaders(stored: Headers): Unpacked | undefined {
  const value = stored.get(META);
  const meta = parseMeta(value);
  if (meta === undefined) return undefined;
  const headers = new Headers(stored);
  for (const name of [...NOT_STORED, ...KEPT, META]) headers.delete(name);
  if (stored.has(ZONE_TAGGED)) {
    // Our tags are the platform's, never the object's (tagForPlatform).
    for (const name of ['cache-tag', OWN_CACHE_TAG, ZONE_TAGGED]) headers.delete(name);
    const own = stored.get(OWN_CACHE_TAG);
    if (own !== null) headers.set('cache-tag', own);
  }
  for (const name of KEPT) {
    const value = stored.get(keptName(name));
    headers.delete(keptName(name));
    if (value !== null) headers.set(name, value);
  }
  return {
    headers,
    meta,
    body: {
      length: envelopeNumber(value, 'len'),
      fill: envelopeNumber(value, 'fill'),
      status: envelopeNumber(value, 'st'),
    },
  };
}

/** A whole-number field of the envelope; undefined when absent or not one. */
function envelopeNumber(value: string | null, name: 'len' | 'fill' | 'st'): number | undefined {
  const match = new RegExp(`(?:^|,)\\s*${name}=(\\d{1,16})\\s*(?:,|$)`).exec(value ?? '');
  return match ? Number(match[1]) : undefined;
}

/** RFC 9111 §4.2.3 current_age = corrected_initial_age + resident_time, in seconds. */
export function currentAge(meta: EntryMeta, now: number): number {
  return meta.initialAge + Math.max(0, (now - meta.storedAt) / 1000);
}

/** Seconds of freshness left (negative once stale). */
export function remainingFreshness(meta: EntryMeta, now: number): number {
  return meta.lifetime - currentAge(meta, now);
}

function parseMeta(value: string | null): EntryMeta | undefined {
  if (!value) return undefined;
  const fields = new Map(
    value.split(',').map((part) => {
      const [name = '', number = ''] = part.split('=');
      return [name.trim(), Number(number)] as const;
    }),
  );
  const storedAt = fields.get('stored');
  const initialAge = fields.get('age');
  const lifetime = fields.get('life');
  if (![storedAt, initialAge, lifetime].every((n) => n !== undefined && Number.isFinite(n) && n >= 0)) return undefined;
  const seconds = (name: string): number => {
    const value = fields.get(name);
    return value !== undefined && Number.isFinite(value) && value >= 0 ? value : 0;
  };
  const origin = fields.get('org');
  return {
    storedAt: storedAt ?? 0,
    initialAge: initialAge ?? 0,
    lifetime: lifetime ?? 0,
    whileRevalidate: seconds('swr'),
    ifError: seconds('sie'),
    mustRevalidate: fields.get('mr') === 1,
    ...(origin !== undefined && Number.isFinite(origin) && origin >= 0 ? { originAt: origin } : {}),
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
