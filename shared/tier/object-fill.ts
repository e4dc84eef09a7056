// The second half of a tier's read path on a miss or a stale entry: ask the next hop, store what may be stored
// (RFC 9111 §3), and on 304 refresh the stored entry without its body (§4.3.4); entry-writes.ts writes what it keeps.
//
// A fill's steps, in the order fillOnce takes them (after Varnish's FETCH_STEPS, cache_fetch.c), one function each:
//   askNextHop    the slice asked for, conditionally when an entry is held (RFC 9111 §4.3.1)
//   ourAnswer     the next hop failed: our own error is the answer, stored only if it may be (a 404, briefly)
//   receive       when the answer came, how old it is (§4.2.3), when its bytes left the origin
//   notModified   a 304: the held entry refreshed (refresh, §4.3.4), or the object asked for if it selects none
//   purgedSince   bytes from before a purge this tier knows of: refused, to be asked for again
//   storeWhole    an object not sliced, stored as it streams where it may be (§3)
//   storeSliced   a sliced object's manifest stored where it may be, with the slice that came along

import { takeOriginAt } from '../hop/hop-fields.ts';
import { correctedInitialAge } from '../http/age.ts';
import type { CacheStatusParams, ForwardReason } from '../http/cache-status.ts';
import { BadGateway, HttpError } from '../http/errors.ts';
import { weakMatch } from '../http/etag.ts';
import { storeVerdict } from '../http/freshness.ts';
import { retention } from '../http/stale.ts';
import { TIERCACHE_TARGETS } from '../http/targeted-cache-control.ts';
import { type ObjectMeta, readManifest, representationHeaders } from '../slices/object-meta.ts';
import type { EntryMeta } from '../store/stored-entry.ts';
import { bodySource } from '../streams/body-source.ts';
import { nextHopBounds, untilHead } from './abandoned-fills.ts';
import { storeEmpty, storeManifest, storeWhileServing, withoutFields } from './entry-writes.ts';
import { startFill } from './fill.ts';
import { withKnownLength } from './held-until-whole.ts';
import type { ObjectRead, UpstreamAnswer, Validators } from './ports.ts';
import type { Resolved, SlicedObject, WholeObject } from './resolved.ts';
import { type Storing, withKnownStored } from './stored-report.ts';
import { admits, type Storable, type StoredEntry } from './tier-cache.ts';
import { placeVariant } from './variant-place.ts';

/** What a fill produced, and the promise of its stores (settled when done or skipped). */
export interface Filled {
  resolved: Resolved;
  stored: Promise<unknown>;
  /** A whole body of known length stored as it streams: its member says `stored` only once known (stored-report.ts). */
  storing?: Storing | undefined;
}

/** The next hop's answer and when it was asked, or the error it failed with (one of ours, an HttpError). */
type Asked = { kind: 'answered'; answer: UpstreamAnswer; sentAt: number } | { kind: 'failed'; error: HttpError };

/** An answer as received: its headers (with a Date), when, how old, and when its bytes came from the origin. */
interface Received {
  headers: Headers;
  responseTime: number;
  age: number;
  originAt: number;
}

/** What one fill asks: slice `index`, conditionally when `held`; `softTaken`: a soft-purged copy may answer. */
interface FillAsk {
  index: number;
  started: number;
  fwd: ForwardReason;
  held: StoredEntry | undefined;
  softTaken: boolean;
}

/**
 * Asks upstream for slice `index` (conditionally when `held` is given) and stores what it may: a
 * manifest is re-written on 304, a whole entry re-stored from its own bytes. A whole body is stored
 * as it streams to the client, at the store's pace (fill.ts): a slow client reads back from the
 * stored copy what it let go of, and never holds up the fill. An answer whose bytes came from the origin before a purge
 * this tier knows of (the next hop had not read it yet) is not taken: asked once more, the purge's time now sent along
 * (shield-client.ts), so the next hop goes to the origin; still purged, a 502.
 */
export async function fill(
  read: ObjectRead,
  index: number,
  started: number,
  fwd: ForwardReason,
  held?: StoredEntry,
): Promise<Filled> {
  for (let attempt = 0; ; attempt++) {
    // Asked again with the soft purge's time sent along, a copy still only soft-purged is what the next hop may serve
    // (its stale-if-error, say): taken, stored with its old origin time, so it is revalidated again the next time.
    const filled = await fillOnce(read, { index, started, fwd, held, softTaken: attempt > 0 });
    // A body sent without a length goes out once it has ended, with it (held-until-whole.ts); one stored as it
    // streams says `stored` only once it is (stored-report.ts).
    if (filled !== 'purged') return withKnownStored(await withKnownLength(filled));
    if (attempt > 0) throw new BadGateway('the next hop answered only with a copy purged since, and no fresh one');
  }
}

/** One answer from the next hop judged and kept: the steps above, each deciding or handing on. */
async function fillOnce(read: ObjectRead, ask: FillAsk): Promise<Filled | 'purged'> {
  const { fwd } = ask;
  const asked = await askNextHop(read, ask.index, ask.held);
  if (asked.kind === 'failed') return ourAnswer(read, asked.error, fwd);
  const { answer } = asked;
  const received = receive(read, answer, ask.started, asked.sentAt);
  if (answer.kind === 'not-modified') return notModified(read, ask, received);
  if (await purgedSince(read, answer, received, ask.softTaken)) return 'purged';
  if (answer.kind === 'whole') {
    const { headers, age, responseTime, originAt } = received;
    return storeWhole(read, answer.response, headers, age, responseTime, fwd, originAt);
  }
  return storeSliced(read, answer, received, fwd);
}

async function askNextHop(read: ObjectRead, index: number, held: StoredEntry | undefined): Promise<Asked> {
  // When the request left: bytes it brings may be as old as this, whenever they arrive (a purge
  // made while it was in flight covers them).
  const sentAt = read.now();
  // On the client's signal only until the head arrives (abandoned-fills.ts untilHead): what the answer brings after it
  // is the cache's, as far as a fill nobody waits for may go (fill.ts).
  const asking = untilHead(read);
  try {
    const answer = await read.upstream.slices({ first: index, last: index }, undefined, {
      validators: held && validatorsOf(held.headers),
      signal: asking.signal,
    });
    return { kind: 'answered', answer, sentAt };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { kind: 'failed', error };
  } finally {
    asking.headIn();
  }
}

/** The next hop's failure as our own answer: stored only if it may be (a 404, briefly); Cache-Status keeps its status. */
function ourAnswer(read: ObjectRead, error: HttpError, fwd: ForwardReason): Filled {
  const response = error.toResponse();
  const responseTime = read.now();
  const headers = new Headers(response.headers);
  // RFC 9110 §6.6.1: this answer is ours, so we (a server with a clock) give it the Date an
  // origin's answer would carry, as a next hop's answer without one is given in receive; it is
  // stored with it (a 404, briefly), so later hits carry it too.
  headers.set('date', new Date(responseTime).toUTCString());
  const filled = storeWhole(read, response, headers, 0, responseTime, fwd);
  if (error.upstreamStatus !== undefined) filled.resolved.report.fwdStatus = error.upstreamStatus;
  else delete filled.resolved.report.fwdStatus;
  // Our own answer, and why (RFC 9211 §2.8): the next tier reads a disconnection from it.
  if (error.detail !== undefined) filled.resolved.report.detail = error.detail;
  return filled;
}

function receive(read: ObjectRead, answer: UpstreamAnswer, started: number, sentAt: number): Received {
  const responseTime = read.now();
  const headers = new Headers(answer.response.headers);
  // When these bytes came from the origin: as the next hop says (the shield), or when we asked it.
  const originAt = takeOriginAt(headers, sentAt);
  if (!headers.has('date')) headers.set('date', new Date(responseTime).toUTCString());
  return { headers, responseTime, age: correctedInitialAge(headers, started, responseTime), originAt };
}

function notModified(read: ObjectRead, ask: FillAsk, received: Received): Promise<Filled | 'purged'> | Filled {
  const { held } = ask;
  // An answer to a request with no validators: nothing held to refresh, nothing to serve.
  if (held === undefined) throw new BadGateway('upstream answered 304 to an unconditional request');
  const { headers, age, responseTime, originAt } = received;
  if (selectsHeld(headers, held)) return refresh(read, held, headers, age, responseTime, originAt);
  // RFC 9111 §4.3.4: a 304 whose validator matches nothing stored updates nothing: ask for the object itself.
  return fillOnce(read, { ...ask, held: undefined });
}

/**
 * Whether the answer's bytes came from the origin before a purge this tier knows of, or (unless the copy a soft purge
 * made stale is what the next hop may serve, softTaken) before a soft purge: then its body is let go.
 */
async function purgedSince(
  read: ObjectRead,
  answer: Exclude<UpstreamAnswer, { kind: 'not-modified' }>,
  received: Received,
  softTaken: boolean,
): Promise<boolean> {
  const representation = answer.kind === 'whole' ? received.headers : answer.meta.headers;
  const candidate = { meta: { storedAt: received.responseTime, originAt: received.originAt }, headers: representation };
  if (read.purged?.(candidate) !== true && (softTaken || read.softPurgedAt?.(candidate) === undefined)) return false;
  await (answer.kind === 'whole' ? answer.response.body : answer.kind === 'span' ? answer.body : null)
    ?.cancel()
    .catch(() => undefined);
  return true;
}

/** A sliced object: its manifest stored where it may be (§3), and the slice discovery brought handed on. */
function storeSliced(
  read: ObjectRead,
  answer: Extract<UpstreamAnswer, { kind: 'span' | 'beyond' }>,
  received: Received,
  fwd: ForwardReason,
): Filled {
  const { headers, age, responseTime, originAt } = received;
  const verdict = storeVerdict(200, answer.meta.headers, verdictOptions(read, responseTime));
  let entry: EntryMeta | undefined;
  let stored: Promise<unknown> = Promise.resolve();
  const keep = verdict.store ? retention(verdict.lifetime, age, verdict.stale) : 0;
  const placed = verdict.store
    ? placeVariant(read, 200, answer.meta.headers, entryMeta(responseTime, age, verdict, originAt), keep)
    : undefined;
  if (verdict.store && placed !== undefined) {
    entry = entryMeta(responseTime, age, verdict, originAt);
    stored = Promise.all([
      placed,
      storeManifest(read, { ...answer.meta, headers: withoutFields(answer.meta.headers, verdict.strip) }, entry, keep),
    ]);
  }
  const prefetched = new Map<number, ReadableStream<Uint8Array>>();
  if (answer.kind === 'span') prefetched.set(answer.span.first, answer.body);
  const resolved: SlicedObject = {
    kind: 'sliced',
    meta: answer.meta,
    age,
    report: { fwd, stored: entry !== undefined },
    originAt,
    upstreamHeaders: headers,
    entry,
    prefetched,
    inRange: answer.kind === 'span',
  };
  return { resolved, stored };
}

/** RFC 9111 §4.3.4: a 304 updates the stored headers (and freshness); the stored body stands. */
function refresh(
  read: ObjectRead,
  held: StoredEntry,
  update: Headers,
  age: number,
  responseTime: number,
  originAt: number,
): Filled {
  const headers = new Headers(held.headers);
  // RFC 9111 §3.2: every field the 304 carries replaces the stored one, except Content-Length
  // and the ones the stored bytes depend on (their coding and type).
  for (const [name, value] of representationHeaders(update))
    if (!['content-type', 'content-length', 'content-encoding'].includes(name)) headers.set(name, value);
  const report: CacheStatusParams = { fwd: 'stale', fwdStatus: 304 };
  const verdict = storeVerdict(held.status, headers, verdictOptions(read, responseTime));
  // A 304 confirms the bytes: they are as of the origin's answer now.
  const entry = verdict.store ? entryMeta(responseTime, age, verdict, originAt) : undefined;
  const keep = verdict.store ? retention(verdict.lifetime, age, verdict.stale) : 0;
  report.stored = verdict.store;
  const manifest = readManifest(held.headers);
  if (manifest !== undefined) {
    void held.body?.cancel();
    const meta: ObjectMeta = { ...manifest, headers: representationHeaders(headers) };
    const stored = entry ? storeManifest(read, meta, entry, keep) : Promise.resolve();
    const resolved: SlicedObject = {
      kind: 'sliced',
      meta,
      age,
      report,
      originAt,
      upstreamHeaders: update,
      entry,
      prefetched: new Map(),
      inRange: true,
    };
    return { resolved, stored };
  }
  let body = held.body;
  let stored: Promise<boolean> | undefined;
  const renewed = entry && { status: held.status, headers, meta: entry, retention: keep, length: held.length };
  if (body !== null && renewed !== undefined && admits(read.cache, read.key, renewed))
    ({ body, stored } = storeWhileServing(read, renewed, body));
  const whole: WholeObject = { kind: 'whole', status: held.status, headers, body, age, report, originAt, entry };
  const storing = held.length === undefined || stored === undefined ? undefined : { length: held.length, stored };
  return { resolved: whole, stored: stored ?? Promise.resolve(), storing };
}

/** An object not sliced (or our own error): stored as it streams where it may be (§3), its body counted either way. */
function storeWhole(
  read: ObjectRead,
  response: Response,
  headers: Headers,
  age: number,
  responseTime: number,
  fwd: ForwardReason,
  originAt = responseTime,
): Filled {
  const verdict = storeVerdict(response.status, headers, verdictOptions(read, responseTime));
  const meta = verdict.store ? entryMeta(responseTime, age, verdict, originAt) : undefined;
  const keep = verdict.store ? retention(verdict.lifetime, age, verdict.stale) : 0;
  // A 204 has no content to stream (RFC 9110 §15.3.5) but is stored like any other (§15.1: heuristically cacheable).
  const contentless = response.body === null && response.status === 204;
  const length = declaredLength(headers);
  // Kept only where the store admits it (TierCache.admits): else streamed at its client's pace, as one not storable.
  const placed =
    meta !== undefined &&
    (response.body !== null || contentless) &&
    admits(read.cache, read.key, { status: response.status, headers, meta, retention: keep, length })
      ? placeVariant(read, response.status, headers, meta, keep)
      : undefined;
  const kept =
    meta === undefined || placed === undefined
      ? undefined
      : {
          placed,
          entry: {
            status: response.status,
            headers: withoutFields(headers, verdict.store ? verdict.strip : []),
            meta,
            retention: keep,
            length,
          },
        };
  const { body, stored, storing } = wholeBody(read, response.body, length, kept);
  const report: CacheStatusParams = { fwd, stored: placed !== undefined };
  if (response.status !== 200) report.fwdStatus = response.status;
  return {
    resolved: { kind: 'whole', status: response.status, headers, body, age, report, originAt, entry: kept && meta },
    stored,
    storing,
  };
}

/**
 * A whole answer's body on its way to the client: where it is `kept` (its variant placed), stored as it streams (a 204,
 * stored empty); where not, counted and bounded in silence, its length on the wire (a body without one, in size and
 * time too).
 */
function wholeBody(
  read: ObjectRead,
  body: ReadableStream | null,
  length: number | undefined,
  kept: { placed: Promise<unknown>; entry: Omit<Storable, 'body' | 'fill'> } | undefined,
): Pick<Filled, 'stored' | 'storing'> & { body: ReadableStream | null } {
  if (kept !== undefined && body === null) {
    const { entry } = kept;
    return {
      body,
      stored: Promise.all([kept.placed, storeEmpty(read, read.key, 204, entry.headers, entry.meta, entry.retention)]),
    };
  }
  if (kept !== undefined && body !== null) {
    const serving = storeWhileServing(read, kept.entry, body, nextHopBounds(read));
    return {
      body: serving.body,
      stored: Promise.all([kept.placed, serving.stored]),
      storing: length === undefined ? undefined : { length, stored: serving.stored },
    };
  }
  if (body === null) return { body, stored: Promise.resolve() };
  const counted = startFill(bodySource(body as ReadableStream<Uint8Array>, { length }), {
    length,
    signal: read.signal,
    limits: read.fills,
  });
  return { body: counted.client, stored: Promise.resolve() };
}

/** The Content-Length a response declares, when it is a byte count. */
function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  return value !== null && /^\d{1,16}$/.test(value) ? Number(value) : undefined;
}

function verdictOptions(read: ObjectRead, now: number) {
  // RFC 9213: Tiercache-Cache-Control, then CDN-Cache-Control, over Cache-Control; §3.5 reads the request's
  // Authorization.
  return {
    defaultTtl: read.defaultTtl,
    negativeTtl: read.negativeTtl,
    staleDefaults: read.staleDefaults,
    ...(read.override === undefined ? {} : { override: read.override }),
    now,
    targeted: TIERCACHE_TARGETS,
    ...(read.selecting === undefined ? {} : { request: read.selecting }),
  };
}

function entryMeta(
  storedAt: number,
  initialAge: number,
  verdict: { lifetime: number; stale: { whileRevalidate: number; ifError: number; mustRevalidate: boolean } },
  originAt: number,
): EntryMeta {
  return { storedAt, initialAge, lifetime: verdict.lifetime, ...verdict.stale, originAt };
}

/**
 * RFC 9111 §4.3.4: whether a 304 selects the held response for update: its entity-tag, if it
 * carries one, matches the held one by weak comparison (a manifest's pinned version, else the
 * stored ETag field); without an entity-tag on either side, the 304 answered our conditions.
 */
function selectsHeld(update: Headers, held: StoredEntry): boolean {
  const tag = update.get('etag');
  const heldTag = readManifest(held.headers)?.etag ?? held.headers.get('etag');
  return tag === null || heldTag === null || weakMatch(tag, heldTag);
}

function validatorsOf(headers: Headers): Validators {
  return { etag: headers.get('etag'), lastModified: headers.get('last-modified') };
}
