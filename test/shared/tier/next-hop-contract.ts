// What the read path (shared/tier/: object-fill.ts, fill.ts, slice-reader/) relies on of a tier's next hop (Upstream,
// shared/tier/ports.ts), whatever it is: the shield from the edge, the origin (S3 or a site) from the shield, the
// decorators over either, the tests' FakeUpstream. Run as a list of the clauses an implementation breaks (empty: it
// keeps them all), as tier-cache-contract.ts runs the TierCache contract, so that a deliberately broken one can be
// shown to fail the clauses it breaks (next-hop-contract.test.ts). And what the forwarding flows
// (shared/tier/bypass.ts, pass-through.ts) rely on of the same hop's calls for a request forwarded as it came
// (HopCalls), where it has them.

import { CACHED_METHODS, type OriginTraits } from '../../../shared/config/origin-traits.ts';
import { HttpError, VersionChanged } from '../../../shared/http/errors.ts';
import { weakMatch } from '../../../shared/http/etag.ts';
import type { ObjectMeta } from '../../../shared/slices/object-meta.ts';
import type { SliceSpan } from '../../../shared/slices/slice-plan.ts';
import type { HopCall, HopCalls, SliceAsk, Upstream, UpstreamAnswer } from '../../../shared/tier/ports.ts';
import { clauseViolations, expectEqual } from '../../contract.ts';

/** A next hop, and the origin behind it, where the contract puts the objects it reads. */
export interface NextHopUnderTest {
  /** Its slice size (SLICE_SIZE); an object over it is sliced (SLICE_THRESHOLD's default), one of a few bytes not. */
  sliceSize: number;
  /** Puts `bytes` at the origin as the object `name` (a path of safe characters), replacing any version of it. */
  put(name: string, bytes: Uint8Array): Promise<void>;
  /** The next hop for the object `name`, as a tier makes one for each request. */
  hop(name: string): Upstream;
  /**
   * The same hop's calls for what is forwarded as it came, the traits of the origin behind it and the URL a client
   * asks the object `name` at; absent where the hop has none (the tests' fakes): their clauses then ask nothing.
   */
  forwarding?: { calls: HopCalls; traits: OriginTraits; url(name: string): URL };
}

/** A next hop under test, with an origin of its own or a share of one (the contract's names never repeat). */
export type MakeNextHop = () => NextHopUnderTest | Promise<NextHopUnderTest>;

interface Clause {
  name: string;
  /** Resolves when the clause holds; throws (or rejects) with what was seen when it does not. */
  check(under: NextHopUnderTest, name: (what: string) => string): Promise<void>;
}

const SMALL = new TextEncoder().encode('a small object, never sliced\n');
/** A sliced object's length: two slices and a half, so that its last slice is short. */
const SLICES = 2.5;
/** An offset into a span, as the rest of a body that broke is asked for. */
const FROM = 1000;

/** `size` bytes, a pattern of its own for each `version`: two versions of one size differ at every byte. */
function objectBytes(size: number, version = 1): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 31 + version * 101 + (i >> 8)) & 0xff);
}

const span = (first: number, last = first): SliceSpan => ({ first, last });

/** Compared byte by byte, told by length and first difference (never megabytes printed). */
function expectBytes(seen: Uint8Array, wanted: Uint8Array, what: string): void {
  const differs = seen.findIndex((byte, i) => byte !== wanted[i]);
  if (seen.length !== wanted.length || differs !== -1)
    throw new Error(
      `${what}: ${seen.length} bytes, wanted ${wanted.length}${differs === -1 ? '' : `; they differ from byte ${differs}`}`,
    );
}

async function bytesOf(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  return body === null ? new Uint8Array() : new Uint8Array(await new Response(body).arrayBuffer());
}

/** The answer's body, let go of. */
async function discard(answer: UpstreamAnswer): Promise<void> {
  const body = answer.kind === 'span' ? answer.body : answer.response.body;
  await body?.cancel().catch(() => undefined);
}

function as<Kind extends UpstreamAnswer['kind']>(
  answer: UpstreamAnswer,
  kind: Kind,
  what: string,
): Extract<UpstreamAnswer, { kind: Kind }> {
  if (answer.kind !== kind) {
    void discard(answer);
    const status = 'response' in answer ? ` (status ${answer.response.status})` : '';
    throw new Error(`${what}: answered ${answer.kind}${status}, wanted ${kind}`);
  }
  return answer as Extract<UpstreamAnswer, { kind: Kind }>;
}

/** Whether `promise` rejected, its rejection, or its value (whose body the caller lets go of). */
async function settled<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

/** A sliced object put at `name`: its bytes and its version as discovery describes it (slice 0's body read). */
async function slicedObject(
  under: NextHopUnderTest,
  name: string,
): Promise<{ bytes: Uint8Array; meta: ObjectMeta; first: Uint8Array }> {
  const bytes = objectBytes(SLICES * under.sliceSize);
  await under.put(name, bytes);
  const answer = as(await under.hop(name).slices(span(0), undefined), 'span', 'discovery of slice 0');
  return { bytes, meta: answer.meta, first: await bytesOf(answer.body) };
}

/** A client's request for the object `name`, as a tier hands it to its hop's calls. */
function forwardedCall(
  forwarding: NonNullable<NextHopUnderTest['forwarding']>,
  name: string,
  init?: RequestInit,
): HopCall {
  const url = forwarding.url(name);
  return { request: new Request(url, init), url, target: forwarding.traits.target(url) };
}

/** The bytes of slices `first`..`last` of `bytes`, from `from` on. */
function sliceBytes(bytes: Uint8Array, sliceSize: number, { first, last }: SliceSpan, from = 0): Uint8Array {
  return bytes.subarray(first * sliceSize + from, Math.min(bytes.length, (last + 1) * sliceSize));
}

async function pinnedSpan(
  under: NextHopUnderTest,
  name: string,
  meta: ObjectMeta,
  asked: SliceSpan,
  ask?: SliceAsk,
): Promise<{ span: SliceSpan; bytes: Uint8Array }> {
  const what = `span ${asked.first}-${asked.last}${ask?.from ? ` from ${ask.from}` : ''}, pinned`;
  const answer = as(await under.hop(name).slices(asked, meta, ask), 'span', what);
  return { span: answer.span, bytes: await bytesOf(answer.body) };
}

const CLAUSES: readonly Clause[] = [
  {
    name: 'discovery of a small object answers it whole, its exact bytes and an ETag, or as a span of it',
    async check(under, name) {
      await under.put(name('small'), SMALL);
      const answer = await under.hop(name('small')).slices(span(0), undefined);
      if (answer.kind === 'whole') {
        expectEqual(answer.response.status, 200, 'status');
        if (answer.response.headers.get('etag') === null) throw new Error('a whole answer without an ETag');
        expectBytes(await bytesOf(answer.response.body), SMALL, 'body');
        return;
      }
      const sliced = as(answer, 'span', 'discovery');
      expectEqual([sliced.meta.size, sliced.span], [SMALL.length, span(0)], 'size and span');
      expectBytes(await bytesOf(sliced.body), SMALL, 'body');
    },
  },
  {
    name: 'discovery of a sliced object answers a span: its size, a strong ETag and exactly the slice asked',
    async check(under, name) {
      const { bytes, meta, first } = await slicedObject(under, name('sliced'));
      expectEqual([meta.size, meta.sliceSize], [bytes.length, under.sliceSize], 'size and slice size of slice 0');
      if (!/^"[^"]*"$/.test(meta.etag)) throw new Error(`ETag ${meta.etag}, wanted a strong one`);
      expectBytes(first, sliceBytes(bytes, under.sliceSize, span(0)), 'slice 0');
      // A range read from its middle discovers the object by another slice (object-fill.ts).
      const middle = as(await under.hop(name('sliced')).slices(span(1), undefined), 'span', 'discovery of slice 1');
      expectEqual([middle.meta.size, middle.meta.etag, middle.span], [meta.size, meta.etag, span(1)], 'slice 1');
      expectBytes(await bytesOf(middle.body), sliceBytes(bytes, under.sliceSize, span(1)), 'slice 1');
    },
  },
  {
    name: "pinned, a span answers exactly its bytes, its last slice short at the object's end",
    async check(under, name) {
      const { bytes, meta } = await slicedObject(under, name('pinned'));
      const two = await pinnedSpan(under, name('pinned'), meta, span(1, 2));
      expectEqual(two.span, span(1, 2), 'span 1-2');
      expectBytes(two.bytes, sliceBytes(bytes, under.sliceSize, span(1, 2)), 'span 1-2');
      // Asked past the end (as a reader asks a span of maxSpan), the span ends at the object's last slice.
      const past = await pinnedSpan(under, name('pinned'), meta, span(2, 7));
      expectEqual(past.span, span(2, 2), 'span 2-7');
      expectBytes(past.bytes, sliceBytes(bytes, under.sliceSize, span(2)), 'span 2-7');
    },
  },
  {
    name: 'from an offset, a pinned span answers the rest of its bytes from there',
    async check(under, name) {
      const { bytes, meta } = await slicedObject(under, name('rest'));
      const rest = await pinnedSpan(under, name('rest'), meta, span(1, 2), { from: FROM });
      expectEqual(rest.span, span(1, 2), 'span');
      expectBytes(rest.bytes, sliceBytes(bytes, under.sliceSize, span(1, 2), FROM), 'the rest of span 1-2');
    },
  },
  {
    name: "pinned to a version that is no longer the object's, it throws VersionChanged, never another version's bytes",
    async check(under, name) {
      const { bytes, meta } = await slicedObject(under, name('changed'));
      // As long, other bytes: only the ETag tells the versions apart. Slice 1 was never read, so no tier keeps it.
      const next = objectBytes(bytes.length, 2);
      await under.put(name('changed'), next);
      const outcome = await settled(under.hop(name('changed')).slices(span(1), meta));
      if ('error' in outcome) {
        if (outcome.error instanceof VersionChanged) return;
        throw new Error(`threw ${String(outcome.error)}, wanted VersionChanged`);
      }
      const answer = outcome.value;
      if (answer.kind !== 'span') {
        await discard(answer);
        throw new Error(`answered ${answer.kind}, wanted VersionChanged`);
      }
      const got = await bytesOf(answer.body);
      const whose = got.every((byte, i) => byte === next[under.sliceSize + i]) ? 'the new version' : 'no version';
      throw new Error(`answered a span of ${got.length} bytes (${whose}'s), ETag ${answer.meta.etag}`);
    },
  },
  {
    name: "a span starting past the end answers beyond, with the object's size and ETag",
    async check(under, name) {
      const bytes = objectBytes(SLICES * under.sliceSize);
      await under.put(name('beyond'), bytes);
      // Before anything else of the object: a range read past its end is its first read (a 416 to the client).
      const beyond = as(await under.hop(name('beyond')).slices(span(5), undefined), 'beyond', 'span 5');
      await discard(beyond);
      const first = as(await under.hop(name('beyond')).slices(span(0), undefined), 'span', 'discovery of slice 0');
      await discard(first);
      expectEqual([beyond.meta.size, beyond.meta.etag], [bytes.length, first.meta.etag], 'size and ETag');
    },
  },
  {
    // What every hop does today: whole, 200 and empty (none answers beyond for it).
    name: 'an empty object is no error: it answers whole, 200 and empty, or beyond with size 0',
    async check(under, name) {
      await under.put(name('empty'), new Uint8Array());
      const answer = await under.hop(name('empty')).slices(span(0), undefined);
      if (answer.kind === 'beyond') return expectEqual(answer.meta.size, 0, 'size');
      const whole = as(answer, 'whole', 'discovery');
      expectEqual(whole.response.status, 200, 'status');
      expectBytes(await bytesOf(whole.response.body), new Uint8Array(), 'body');
    },
  },
  {
    name: 'validators that still match answer not-modified (with no other ETag); others, the object',
    async check(under, name) {
      await under.put(name('small'), SMALL);
      const whole = as(await under.hop(name('small')).slices(span(0), undefined), 'whole', 'discovery');
      await discard(whole);
      const { headers } = whole.response;
      await revalidated(under, name('small'), headers.get('etag'), headers.get('last-modified'));
      const { meta } = await slicedObject(under, name('sliced'));
      await revalidated(under, name('sliced'), meta.etag, meta.headers.get('last-modified'));
    },
  },
  {
    name: "HEAD agrees with discovery: 200, the object's length and ETag",
    async check(under, name) {
      await under.put(name('small'), SMALL);
      const whole = as(await under.hop(name('small')).slices(span(0), undefined), 'whole', 'discovery');
      await discard(whole);
      await agrees(await under.hop(name('small')).head(), SMALL.length, whole.response.headers.get('etag'), 'small');
      const { meta } = await slicedObject(under, name('sliced'));
      await agrees(await under.hop(name('sliced')).head(), meta.size, meta.etag, 'sliced');
    },
  },
  {
    // S3's answer is thrown (its XML error document never passes, shield/origin/origin-errors.ts); a site's 404 page
    // and the shield's answer are passed on. object-fill.ts stores either as the 404 it is.
    name: 'a missing object is a 404: answered whole with that status, or thrown as an HttpError of 404',
    async check(under, name) {
      const outcome = await settled(under.hop(name('missing')).slices(span(0), undefined));
      if ('error' in outcome) {
        const { error } = outcome;
        if (error instanceof HttpError && error.status === 404) return;
        throw new Error(`threw ${String(error)}${error instanceof HttpError ? ` (${error.status})` : ''}`);
      }
      const whole = as(outcome.value, 'whole', 'discovery');
      await discard(whole);
      expectEqual(whole.response.status, 404, 'status');
    },
  },
  {
    name: "an aborted signal stops the fetch: asked on one, slices and head reject; aborted, a span's body errors",
    async check(under, name) {
      const { bytes, meta } = await slicedObject(under, name('aborted'));
      const gone = AbortSignal.abort();
      for (const [what, asked] of [
        ['discovery', () => under.hop(name('aborted')).slices(span(1), undefined, { signal: gone })],
        ['a pinned span', () => under.hop(name('aborted')).slices(span(1), meta, { signal: gone })],
        ['head', () => under.hop(name('aborted')).head(gone)],
      ] as const) {
        const outcome = await settled<UpstreamAnswer | Response>(asked());
        if ('value' in outcome) {
          const value = outcome.value;
          await (value instanceof Response ? value.body?.cancel() : discard(value));
          throw new Error(`${what} on an aborted signal resolved`);
        }
      }
      const client = new AbortController();
      const answer = as(
        await under.hop(name('aborted')).slices(span(1, 2), meta, { signal: client.signal }),
        'span',
        'span 1-2, pinned',
      );
      const reader = answer.body.getReader();
      let read = (await reader.read()).value?.length ?? 0;
      client.abort();
      const rest = await settled(
        (async () => {
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) read += chunk.value.length;
        })(),
      );
      if ('value' in rest)
        throw new Error(`the body ended after the abort, ${read} of ${bytes.length - under.sliceSize} bytes read`);
    },
  },
  {
    name: "a bypassed GET of an object answers 200 with exactly its bytes (the rule's request, asked as it came)",
    async check(under, name) {
      const { forwarding } = under;
      if (forwarding === undefined) return;
      await under.put(name('small'), SMALL);
      const answer = await forwarding.calls.bypass(forwardedCall(forwarding, name('small')));
      expectEqual(answer.status, 200, 'status');
      expectBytes(await bytesOf(answer.body), SMALL, 'body');
    },
  },
  {
    // As a read's: S3's error document becomes a NotFound of ours (origin.ts bypassAnswer); a site's 404 page passes.
    name: 'a bypassed GET of a missing object is a 404: answered with that status, or thrown as an HttpError of 404',
    async check(under, name) {
      const { forwarding } = under;
      if (forwarding === undefined) return;
      const outcome = await settled(forwarding.calls.bypass(forwardedCall(forwarding, name('missing'))));
      if ('error' in outcome) {
        const { error } = outcome;
        if (error instanceof HttpError && error.status === 404) return;
        throw new Error(`threw ${String(error)}${error instanceof HttpError ? ` (${error.status})` : ''}`);
      }
      await outcome.value.body?.cancel();
      expectEqual(outcome.value.status, 404, 'status');
    },
  },
  {
    name: 'another method reaches an origin that takes them (its answer, never our 405); else our 405 (RFC 9110 §15.5.6)',
    async check(under, name) {
      const { forwarding } = under;
      if (forwarding === undefined) return;
      // Unsafe and without a body: invalidation's method (RFC 9111 §4.4), sent by Node's fetch as the hop sends it.
      const call = forwardedCall(forwarding, name('form'), { method: 'DELETE' });
      const outcome = await settled(forwarding.calls.passThrough(call));
      let answered: { status: number; allow: string | undefined };
      if ('error' in outcome) {
        const { error } = outcome;
        if (!(error instanceof HttpError)) throw new Error(`threw ${String(error)}`);
        answered = { status: error.status, allow: error.headers.allow };
      } else {
        await outcome.value.body?.cancel();
        answered = { status: outcome.value.status, allow: outcome.value.headers.get('allow') ?? undefined };
      }
      const ours = answered.status === 405 && answered.allow === CACHED_METHODS.join(', ');
      if (ours === forwarding.traits.passesOtherMethods)
        throw new Error(
          `${forwarding.traits.passesOtherMethods ? 'passes' : 'takes no'} other methods, answered ${answered.status}` +
            ` with Allow ${JSON.stringify(answered.allow)}`,
        );
    },
  },
];

/** Revalidation with what discovery said: matching validators get not-modified, another ETag the object. */
async function revalidated(
  under: NextHopUnderTest,
  name: string,
  etag: string | null,
  lastModified: string | null,
): Promise<void> {
  const validators = { etag, lastModified };
  const same = as(await under.hop(name).slices(span(0), undefined, { validators }), 'not-modified', name);
  const tag = same.response.headers.get('etag');
  // object-fill.ts refreshes what it holds only from a 304 that selects it (RFC 9111 §4.3.4).
  if (tag !== null && etag !== null && !weakMatch(tag, etag))
    throw new Error(`${name}: not-modified with ETag ${tag}, sent ${etag}`);
  const other = await under.hop(name).slices(span(0), undefined, { validators: { etag: '"other"', lastModified } });
  await discard(other);
  if (other.kind !== 'whole' && other.kind !== 'span') throw new Error(`${name}: another ETag answered ${other.kind}`);
}

async function agrees(head: Response, size: number, etag: string | null, what: string): Promise<void> {
  await head.body?.cancel();
  expectEqual(
    [head.status, head.headers.get('content-length'), head.headers.get('etag')],
    [200, String(size), etag],
    `${what}: HEAD's status, Content-Length and ETag`,
  );
}

let runs = 0;

/** The clauses `make`'s next hops break, each with what was seen; empty when it keeps them all. */
export async function nextHopViolations(make: MakeNextHop): Promise<string[]> {
  const run = ++runs;
  return clauseViolations(CLAUSES, async (clause, index) => {
    // Names no other run or clause uses: a tier's cache (the shield's) never answers from an earlier one.
    const prefix = `contract-${run}-${index}`;
    await clause.check(await make(), (what) => `${prefix}/${what}.bin`);
  });
}

/** The names of the clauses, for reports. */
export const NEXT_HOP_CLAUSES = CLAUSES.map((clause) => clause.name);
