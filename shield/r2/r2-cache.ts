// The R2 tier's store: a TierCache (shared/tier/tier-cache.ts) over an R2 bucket, kept as the Cache API keeps
// entries, so that the one read path runs on it unchanged. Each entry is one R2 object under the tier's prefix, its
// headers, status, counted length and expiry in its custom metadata; its body streams in and out, never held whole.
// A put is kept only when every byte it claimed arrived (R2 keeps an object whole or not at all); a match hands back
// only a body whose size is the one counted in, and whose stream is cut off loudly should R2 send fewer bytes: the
// local Cache API's habit of keeping a failed put's bytes has its R2 analogue in an object that reads short.

import { directiveSeconds, hasDirective, parseCacheControl } from '../../shared/http/cache-control.ts';
import { LengthMismatch } from '../../shared/http/errors.ts';
import type { PurgeCandidate } from '../../shared/purge/purge-rules.ts';
import { readManifest } from '../../shared/slices/object-meta.ts';
import { sliceCount, slicedObjectKey, sliceKey } from '../../shared/slices/slice-plan.ts';
import { fromStoredHeaders } from '../../shared/store/stored-entry.ts';
import { drain } from '../../shared/streams/drain.ts';
import { streamReader } from '../../shared/streams/stream-reader.ts';
import { hopTierTarget } from '../../shared/tier/hop-tier-key.ts';
import type { TierCache } from '../../shared/tier/tier-cache.ts';
import { tier } from '../../shared/tiers/tiers.ts';

/** The part of an R2 bucket binding (workers-types R2Bucket) the tier uses; the tests' buckets have it too. */
export interface R2Store {
  get(key: string): Promise<R2Body | null>;
  head(key: string): Promise<R2Listed | null>;
  put(
    key: string,
    value: ReadableStream | Uint8Array,
    options: { customMetadata: Record<string, string> },
  ): Promise<unknown>;
  delete(keys: string | string[]): Promise<void>;
  list(options: {
    prefix: string;
    cursor?: string;
    limit: number;
    include: 'customMetadata'[];
  }): Promise<{ objects: R2Listed[]; truncated: boolean; cursor?: string }>;
}

/** An object as a listing or a head describes it. */
export interface R2Listed {
  key: string;
  size: number;
  customMetadata?: Record<string, string> | undefined;
}

/** An object with its body. */
export interface R2Body extends R2Listed {
  readonly body: ReadableStream<Uint8Array>;
}

/** Where every entry of the tier is kept in its bucket (a lifecycle rule may name it: docs/costs.md). */
export const R2_PREFIX = `${tier('r2').cacheName}/`;
/** R2's limits (developers.cloudflare.com/r2/platform/limits/): a key, an object's metadata, one upload. */
const KEY_MAX = 1024;
const METADATA_MAX = 8192;
const UPLOAD_MAX = 5 * 1024 ** 3 - 5 * 1024 ** 2;
/** A body whose length nothing says is held to count it before its put (R2 takes only a known length), up to this. */
const UNKNOWN_LENGTH_HELD = 1024 * 1024;
/** The buffer a body is pumped through. */
const PUMP_BUFFER = 256 * 1024;

/** workerd's FixedLengthStream: a pipe that fails unless exactly `length` bytes pass. */
type Fixed = new (length: number) => TransformStream<Uint8Array, Uint8Array>;

/** The custom metadata of an entry: its headers and status as put, its counted length, when it expires. */
interface EntryMetadata {
  headers: [string, string][];
  status: number;
  length: number;
  /** ms epoch: past it the entry is gone (its retention, as the put's max-age said). */
  expires: number;
}

/**
 * The tier's bucket as a TierCache. `now` is the tier's clock (ms epoch): an entry is kept for the `max-age` its put
 * says (the admission's retention, r2-admitted.ts), and a match past it finds nothing and removes it.
 */
export class R2TierCache implements TierCache {
  private readonly bucket: R2Store;
  private readonly now: () => number;

  constructor(bucket: R2Store, now: () => number) {
    this.bucket = bucket;
    this.now = now;
  }

  async match(request: Request): Promise<Response | undefined> {
    const key = request.method === 'GET' ? r2Key(request.url) : undefined;
    if (key === undefined) return undefined;
    // R2 answering an error (its binding throws: an internal error, a rate limit) is a miss, as a disk cache that
    // cannot be read is one: the origin answers, and the tier is read again on the next miss. Said in the logs.
    const object = await this.bucket.get(key).catch((error: unknown) => {
      warnUnread(error, this.now());
      return null;
    });
    if (object === null) return undefined;
    const entry = readMetadata(object.customMetadata);
    // Not an entry of ours, past its retention, or not the bytes counted in (a size R2 did not get from us): gone.
    if (entry === undefined || this.now() >= entry.expires || object.size !== entry.length) {
      await object.body.cancel().catch(() => undefined);
      await this.bucket.delete(key).catch(() => undefined);
      return undefined;
    }
    const headers = new Headers(entry.headers);
    headers.set('content-length', String(entry.length));
    const body = entry.length === 0 ? null : exactly(object.body, entry.length);
    if (body === null) await object.body.cancel().catch(() => undefined);
    return new Response(body, { status: entry.status, headers });
  }

  /**
   * Keeps `response` under the request's URL for its max-age: a GET's only, never a 206; nothing of a `no-store`
   * answer, of one without a positive max-age, or past R2's limits. The body is always read to its end, kept or not,
   * so that whoever writes into it (a fill streaming to its client as well) is never held or failed by R2; rejects
   * once nothing is kept of a body that was to be (short, broken, refused by R2).
   */
  async put(request: Request, response: Response): Promise<void> {
    if (request.method !== 'GET') throw new TypeError('only a GET is kept');
    if (response.status === 206) throw new TypeError('a 206 is never kept');
    const body = response.body as ReadableStream<Uint8Array> | null;
    const key = r2Key(request.url);
    const cc = parseCacheControl(response.headers.get('cache-control'));
    const maxAge = directiveSeconds(cc, 'max-age') ?? 0;
    if (key === undefined || hasDirective(cc, 'no-store') || maxAge <= 0) {
      await drain(body);
      return;
    }
    const metadata = (length: number): Record<string, string> =>
      writeMetadata({
        headers: [...response.headers],
        status: response.status,
        length,
        expires: this.now() + maxAge * 1000,
      });
    const length = declaredLength(response.headers);
    if (length === undefined) return this.putCounted(key, body, metadata);
    if (length > UPLOAD_MAX || tooLarge(metadata(length))) {
      await drain(body);
      return;
    }
    await this.putStreamed(key, body, length, metadata(length));
  }

  async delete(request: Request): Promise<boolean> {
    const key = r2Key(request.url);
    if (key === undefined || (await this.bucket.head(key)) === null) return false;
    await this.bucket.delete(key);
    return true;
  }

  /** A body of `length` bytes streamed into its object; nothing is kept unless exactly that many arrived. */
  private async putStreamed(
    key: string,
    body: ReadableStream<Uint8Array> | null,
    length: number,
    customMetadata: Record<string, string>,
  ): Promise<void> {
    const Fixed = (globalThis as { FixedLengthStream?: Fixed }).FixedLengthStream;
    if (body === null || length === 0 || Fixed === undefined) {
      // Node (the tests): the bytes counted in memory, then put; an empty body put as it is.
      const bytes = await counted(body, length);
      await this.bucket.put(key, bytes, { customMetadata });
      return;
    }
    const fixed = new Fixed(length);
    const writer = fixed.writable.getWriter();
    const storing = this.bucket.put(key, fixed.readable, { customMetadata }).then(
      () => true,
      () => false,
    );
    // R2 giving up (its put rejects) stops the writing, never the reading: the rest is drained.
    const refused = storing.then((stored) => {
      if (!stored) throw new Error('R2 did not take the body');
    });
    let written = true;
    const pumped = await pump(body, async (bytes) => {
      if (written) await Promise.race([writer.write(bytes), refused]).catch(() => (written = false));
    });
    if (written && pumped === length) await writer.close().catch(() => (written = false));
    else
      await writer
        .abort(new LengthMismatch(`the body ended after ${pumped} of ${length} bytes`))
        .catch(() => undefined);
    if (!(await storing) || !written || pumped !== length) {
      await this.bucket.delete(key).catch(() => undefined);
      throw new LengthMismatch(`R2 kept nothing of a body of ${length} bytes (${pumped} arrived)`);
    }
  }

  /** A body whose length nothing said: counted in memory up to UNKNOWN_LENGTH_HELD and put, else not kept. */
  private async putCounted(
    key: string,
    body: ReadableStream<Uint8Array> | null,
    metadata: (length: number) => Record<string, string>,
  ): Promise<void> {
    const chunks: Uint8Array[] = [];
    let held = 0;
    await pump(body, async (bytes) => {
      held += bytes.byteLength;
      if (held <= UNKNOWN_LENGTH_HELD) chunks.push(bytes.slice());
      else chunks.length = 0;
    });
    if (held > UNKNOWN_LENGTH_HELD || tooLarge(metadata(held))) return;
    await this.bucket.put(key, concat(chunks, held), { customMetadata: metadata(held) });
  }
}

/** When this isolate last logged a get R2 failed (ms epoch, the tier's clock): a line a minute at most. */
let unreadWarnedAt = Number.NEGATIVE_INFINITY;
const UNREAD_WARN_EVERY_MS = 60_000;

/**
 * A get R2 failed, in the logs (Workers Logs): a tier that fails open costs the origin's egress while it does, which
 * nobody would see; a line a minute per isolate at most, however many fail.
 */
function warnUnread(error: unknown, now: number): void {
  if (now - unreadWarnedAt < UNREAD_WARN_EVERY_MS) return;
  unreadWarnedAt = now;
  const reason = error instanceof Error ? error.message : String(error);
  console.warn(`tiercache r2: a get failed (${reason}); its reads go to the origin while R2 fails`);
}

/** The object key of an entry's URL, under the tier's prefix; undefined past R2's key length. */
export function r2Key(url: string): string | undefined {
  const key = `${R2_PREFIX}${url.replace(/^https?:\/\//, '')}`;
  return new TextEncoder().encode(key).byteLength <= KEY_MAX ? key : undefined;
}

/** A listed object as a purge judges it, and the slices it stands for. */
export interface ListedEntry {
  /** The target of the object it belongs to (a slice's, its object's): what a purge names. */
  target: string;
  /** What the read path stored it with. */
  candidate: PurgeCandidate;
  /** A sliced object's manifest: the keys of its version's slices, which carry no tags of their own; else none. */
  slices: string[];
}

/** A listed object as a purge judges it (shared/purge/purge-rules.ts purgedBy); undefined for an object not ours. */
export function listedEntry(object: R2Listed): ListedEntry | undefined {
  const entry = readMetadata(object.customMetadata);
  if (entry === undefined || !object.key.startsWith(R2_PREFIX)) return undefined;
  const url = `https://${object.key.slice(R2_PREFIX.length)}`;
  const sliced = slicedObjectKey(url);
  const target = hopTierTarget('r2', sliced ?? url);
  const stored = fromStoredHeaders(new Headers(entry.headers));
  if (target === undefined || stored === undefined) return undefined;
  const manifest = sliced === undefined ? readManifest(stored.headers) : undefined;
  const slices =
    manifest === undefined
      ? []
      : Array.from({ length: sliceCount(manifest.size, manifest.sliceSize) }, (_, index) =>
          r2Key(sliceKey(url, manifest, manifest.sliceSize, index)),
        ).filter((key) => key !== undefined);
  return { target, candidate: { meta: stored.meta, headers: stored.headers }, slices };
}

/** When the entry an object's custom metadata describes expires (ms epoch); undefined for an object not ours. */
export function expiryOf(customMetadata: Record<string, string> | undefined): number | undefined {
  return readMetadata(customMetadata)?.expires;
}

/**
 * What a put with this custom metadata commits R2 to keep: the entry's counted bytes, until its expiry (ms epoch);
 * undefined for an object not ours.
 */
export function keptOf(customMetadata: Record<string, string>): { bytes: number; expires: number } | undefined {
  const entry = readMetadata(customMetadata);
  return entry === undefined ? undefined : { bytes: entry.length, expires: entry.expires };
}

function writeMetadata(entry: EntryMetadata): Record<string, string> {
  return {
    headers: JSON.stringify(entry.headers),
    status: String(entry.status),
    length: String(entry.length),
    expires: String(Math.round(entry.expires)),
  };
}

function readMetadata(metadata: Record<string, string> | undefined): EntryMetadata | undefined {
  if (metadata === undefined) return undefined;
  const [status, length, expires] = [metadata.status, metadata.length, metadata.expires].map((value) =>
    value !== undefined && /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN,
  ) as [number, number, number];
  if (!(status >= 200 && status <= 599) || !Number.isSafeInteger(length) || !Number.isSafeInteger(expires))
    return undefined;
  let headers: unknown;
  try {
    headers = JSON.parse(metadata.headers ?? '');
  } catch {
    return undefined;
  }
  if (!Array.isArray(headers) || !headers.every(isHeaderPair)) return undefined;
  return { headers, status, length, expires };
}

function isHeaderPair(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string');
}

function tooLarge(metadata: Record<string, string>): boolean {
  const bytes = Object.entries(metadata).reduce((sum, [name, value]) => sum + name.length + value.length, 0);
  return bytes > METADATA_MAX;
}

/**
 * The bytes a body to be put claims: the length the read path counts it at (its envelope, shared/store/
 * stored-entry.ts), else its Content-Length; undefined when neither says.
 */
function declaredLength(headers: Headers): number | undefined {
  const counted = fromStoredHeaders(headers)?.body.length;
  if (counted !== undefined) return counted;
  const declared = headers.get('content-length');
  return declared !== null && /^\d{1,16}$/.test(declared) ? Number(declared) : undefined;
}

/** Every byte of `body` handed to `write` through one lent buffer, each write awaited; resolves with the count. */
async function pump(
  body: ReadableStream<Uint8Array> | null,
  write: (bytes: Uint8Array) => Promise<void>,
): Promise<number> {
  if (body === null) return 0;
  const reader = streamReader(body);
  let buffer: Uint8Array = new Uint8Array(PUMP_BUFFER);
  let count = 0;
  try {
    for (;;) {
      const read = await reader.read(buffer);
      if (read.done) return count;
      count += read.value.byteLength;
      await write(read.value);
      // A BYOB read hands the buffer back in its view (the one lent is detached); a copying one fills it in place.
      buffer = new Uint8Array(read.value.buffer);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  }
}

/** `body` read whole and checked to hold exactly `length` bytes (the tests' runtime, where R2 takes bytes). */
async function counted(body: ReadableStream<Uint8Array> | null, length: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const count = await pump(body, async (bytes) => void chunks.push(bytes.slice()));
  if (count !== length) throw new LengthMismatch(`the body ended after ${count} of ${length} bytes`);
  return concat(chunks, count);
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * `body` as exactly `length` bytes: in workerd through a FixedLengthStream, which errors the stream should R2 end it
 * short (the runtime moves it, no JavaScript per chunk); elsewhere counted by JavaScript. Either way a reader sees a
 * failure, never a shorter body that looks whole.
 */
function exactly(body: ReadableStream<Uint8Array>, length: number): ReadableStream<Uint8Array> {
  const Fixed = (globalThis as { FixedLengthStream?: Fixed }).FixedLengthStream;
  if (Fixed !== undefined) return body.pipeThrough(new Fixed(length));
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > length) throw new LengthMismatch(`R2 sent more than the ${length} bytes counted in`);
        controller.enqueue(chunk);
      },
      flush() {
        if (seen !== length) throw new LengthMismatch(`R2 sent ${seen} of the ${length} bytes counted in`);
      },
    }),
  );
}
