// What the shield relies on of an Origin (shield/origin/origin.ts), whatever its kind: S3 signed with SigV4, a site,
// any kind to come. Run as a list of the clauses an implementation breaks (empty: it keeps them all), so that a
// deliberately broken one can be shown to fail it (origin-contract.test.ts), as tier-cache-contract.ts is for stores.

import { NotFound } from '../../../shared/http/errors.ts';
import type { RequestTarget } from '../../../shared/request/request-target.ts';
import type { Origin } from '../../../shield/origin/origin.ts';
import { probeWithin } from '../../../shield/origin/origin-probe.ts';
import { clauseViolations, expectEqual } from '../../contract.ts';

/** An implementation under test, over a real server. */
export interface OriginUnderTest {
  /** The origin, over a server that holds `object`. */
  origin: Origin;
  /** The same kind of origin, over an address nothing listens on. */
  unreachable: Origin;
  /** An object the server holds: its path as a client writes it, and exactly its bytes (a dozen at least). */
  object: { path: string; bytes: Uint8Array };
  /** A path naming no object there. */
  missing: string;
}

/** The implementation under test: its servers already started (each clause asks for it afresh). */
export type MakeOrigin = () => OriginUnderTest | Promise<OriginUnderTest>;

interface Clause {
  name: string;
  /** Resolves when the clause holds; throws (or rejects) with what was seen when it does not. */
  check(under: OriginUnderTest): Promise<void>;
}

/** How long the probe may take: a loopback server answers in milliseconds. */
const PROBE_BOUND_MS = 5000;
/** Per-hop fields (RFC 9110 §7.6.1) a Node server sends with every answer, which no tier may keep. */
const PER_HOP = ['connection', 'keep-alive', 'transfer-encoding'];

/** The request target of `path`, in the spelling the origin's own keys use. */
function targetOf(origin: Origin, path: string): RequestTarget {
  return origin.traits.target(new URL(path, 'https://contract.tiercache.internal'));
}

function get(under: OriginUnderTest, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  return under.origin.fetch(targetOf(under.origin, under.object.path), method, headers);
}

async function bytesOf(response: Response): Promise<number[]> {
  return [...new Uint8Array(await response.arrayBuffer())];
}

/** The middle third of the object: a range that is neither its start nor its end. */
function middle(bytes: Uint8Array): { first: number; last: number } {
  return { first: Math.floor(bytes.length / 3), last: Math.floor((2 * bytes.length) / 3) };
}

const CLAUSES: readonly Clause[] = [
  {
    name: 'a GET of an object answers 200 with exactly its bytes, its length, a strong ETag and Last-Modified',
    async check(under) {
      const answer = await get(under);
      expectEqual(answer.status, 200, 'status');
      expectEqual(answer.headers.get('content-length'), String(under.object.bytes.length), 'content-length');
      const etag = answer.headers.get('etag') ?? '';
      // RFC 9110 §8.8.3: the slices of one version are pinned to a strong ETag (If-Match compares strongly).
      if (!/^"[^"]*"$/.test(etag)) throw new Error(`etag: ${JSON.stringify(etag)}, wanted a strong entity tag`);
      if (answer.headers.get('last-modified') === null) throw new Error('last-modified: none');
      expectEqual(await bytesOf(answer), [...under.object.bytes], 'body');
    },
  },
  {
    name: 'a HEAD agrees with the GET: 200, the same ETag, Last-Modified and Content-Length, and no body',
    async check(under) {
      const whole = await get(under);
      await whole.body?.cancel();
      const head = await get(under, {}, 'HEAD');
      expectEqual(head.status, 200, 'status');
      for (const name of ['etag', 'last-modified', 'content-length'])
        expectEqual(head.headers.get(name), whole.headers.get(name), name);
      expectEqual(await bytesOf(head), [], 'body');
    },
  },
  {
    name: 'a range answers 206 with exactly the Content-Range asked and exactly those bytes (RFC 9110 §14.4)',
    async check(under) {
      const { first, last } = middle(under.object.bytes);
      const answer = await get(under, { range: `bytes=${first}-${last}` });
      expectEqual(answer.status, 206, 'status');
      expectEqual(
        answer.headers.get('content-range'),
        `bytes ${first}-${last}/${under.object.bytes.length}`,
        'content-range',
      );
      expectEqual(await bytesOf(answer), [...under.object.bytes.subarray(first, last + 1)], 'body');
    },
  },
  {
    name: "a range pinned to the object's own ETag (If-Match) is answered, as the shield's pinned slices ask it",
    async check(under) {
      const whole = await get(under);
      await whole.body?.cancel();
      const { first, last } = middle(under.object.bytes);
      const pinned = await get(under, { range: `bytes=${first}-${last}`, 'if-match': whole.headers.get('etag') ?? '' });
      expectEqual(pinned.status, 206, 'status');
      expectEqual(pinned.headers.get('etag'), whole.headers.get('etag'), 'etag');
      expectEqual(await bytesOf(pinned), [...under.object.bytes.subarray(first, last + 1)], 'body');
    },
  },
  {
    name: "If-None-Match with the object's ETag answers 304 without a body: a stored copy revalidates (RFC 9110 §13.1.2)",
    async check(under) {
      const whole = await get(under);
      await whole.body?.cancel();
      const revalidated = await get(under, { 'if-none-match': whole.headers.get('etag') ?? '' });
      expectEqual(revalidated.status, 304, 'status');
      expectEqual(await bytesOf(revalidated), [], 'body');
    },
  },
  {
    name: "the headers kept of an answer are the representation's (its ETag, Last-Modified, Content-Type), none per hop",
    async check(under) {
      const answer = await get(under);
      await answer.body?.cancel();
      const kept = under.origin.keptHeaders(answer.headers);
      for (const name of ['etag', 'last-modified', 'content-type'])
        expectEqual(kept.get(name), answer.headers.get(name), name);
      expectEqual(
        PER_HOP.filter((name) => kept.has(name)),
        [],
        'per-hop fields kept',
      );
    },
  },
  {
    name: 'a missing object reaches the client as a 404, never a 5xx of ours: passed on as answered, or a NotFound',
    async check(under) {
      const { origin } = under;
      const answer = await origin.fetch(targetOf(origin, under.missing), 'GET', {});
      if (origin.passesAnswersOn) {
        expectEqual(answer.status, 404, 'status passed on');
        await answer.body?.cancel();
      } else expectEqual((await origin.failure(answer)).status, 404, 'status of the failure');
    },
  },
  {
    name: "failure() of a missing object's answer is a NotFound (404), its body consumed",
    async check(under) {
      const { origin } = under;
      const answer = await origin.fetch(targetOf(origin, under.missing), 'GET', {});
      const failure = await origin.failure(answer);
      if (!(failure instanceof NotFound))
        throw new Error(`failure: ${failure.status} ${failure.message}, wanted a NotFound`);
      expectEqual(answer.bodyUsed || answer.body === null, true, 'body consumed');
    },
  },
  {
    name: "a bypassed GET's answer is the object: 200 and exactly its bytes",
    async check(under) {
      const answer = await under.origin.bypassAnswer(await get(under));
      expectEqual(answer.status, 200, 'status');
      expectEqual(await bytesOf(answer), [...under.object.bytes], 'body');
    },
  },
  {
    name: 'the probe finds an origin that serves ok (its first probe, and the object), and one nobody listens on unreachable',
    async check(under) {
      const { origin, unreachable } = under;
      const first = origin.probeTarget(undefined);
      expectEqual((await probeWithin(first.origin, first.target, PROBE_BOUND_MS)).origin, 'ok', 'first probe');
      const object = targetOf(origin, under.object.path);
      expectEqual((await probeWithin(origin, object, PROBE_BOUND_MS)).origin, 'ok', 'probe of the object');
      expectEqual((await probeWithin(unreachable, object, PROBE_BOUND_MS)).origin, 'unreachable', 'nobody listening');
    },
  },
];

/** The clauses `make`'s origin breaks, each with what was seen; empty when it keeps them all. */
export async function originViolations(make: MakeOrigin): Promise<string[]> {
  return clauseViolations(CLAUSES, async (clause) => clause.check(await make()));
}

/** The names of the clauses, for reports. */
export const ORIGIN_CLAUSES = CLAUSES.map((clause) => clause.name);
