// Whether a hop's answer is the slice it asked for, checked as nginx's slice module checks every slice
// (ngx_http_slice_filter_module.c): the status the hop answers a slice with, the pinned version (the same entity-tag,
// the same size), exactly the bytes expected, framed as that many where the hop promises it, and a body. Pure: each
// hop reads its own framing into a SliceStatement (the shield the origin's 206 and its Content-Range, the edge the
// shield's 200 and its span field) and turns `why` into its own error, so a body is never mixed from two versions.

import type { ByteRange } from '../http/range.ts';
import type { ObjectVersion } from '../slices/slice-plan.ts';

/** What a hop asked for, and how its answer must come. */
export interface AskedSlice {
  /** The bytes asked for, inclusive at both ends: a span's, or their rest from an offset. */
  bytes: ByteRange;
  /** The status a slice comes with on this hop: 206 from an origin (RFC 9110 §15.3.7), 200 from the shield. */
  status: number;
  /**
   * Whether the answer must frame its body as exactly those bytes (Content-Length): the shield's answers must
   * (shared/hop/slice-protocol.ts: complete 200s a cache may keep); an origin's 206 may come chunked.
   */
  exactLength: boolean;
}

/** What an answer's header fields state, as its hop reads them off its framing. */
export interface SliceStatement<Body> {
  /**
   * The version its bytes are of (shared/slices/version-pin.ts): their strong entity-tag, or without any ETag their
   * Last-Modified and complete length; null: none.
   */
  etag: string | null;
  /** The object's complete length (RFC 9110 §14.4 complete-length); undefined: not stated. */
  size: number | undefined;
  /** The bytes it holds, inclusive; undefined: its framing names none that can be read. */
  range: ByteRange | undefined;
  /** Its body's length as framed (Content-Length); undefined: not stated (chunked), or not a length. */
  length: number | undefined;
  /** Its body, handed back once checked; null: none. */
  body: Body | null;
}

/** Why an answer is not the slice asked for: what was expected, and what arrived. */
export interface NotTheSlice {
  ok: false;
  why: string;
}

/**
 * The answer is the slice: its body, and whether it frames it as exactly the bytes asked (`exact`), so that the runtime
 * may move it by itself.
 */
export type SliceCheck<Body> = { ok: true; body: Body; exact: boolean } | NotTheSlice;

/**
 * Whether `status` and `stated` answer `asked` of `pinned` (undefined: discovery, which any version answers), in
 * nginx's order: the status, a readable range, the version, the range's bytes, then what the framing promises.
 */
export function checkSlice<Body>(
  asked: AskedSlice,
  pinned: ObjectVersion | undefined,
  status: number,
  stated: SliceStatement<Body>,
): SliceCheck<Body> {
  if (status !== asked.status)
    return notTheSlice(`unexpected status ${status} in slice response while expecting ${asked.status}`);
  const { range } = stated;
  if (range === undefined) return notTheSlice('no range in slice response');
  const version = checkVersion(pinned, stated);
  if (!version.ok) return version;
  if (range.start !== asked.bytes.start || range.end !== asked.bytes.end)
    return notTheSlice(`unexpected range in slice response: ${spanOf(range)} while expecting ${spanOf(asked.bytes)}`);
  const length = range.end - range.start + 1;
  const exact = stated.length === length;
  if (asked.exactLength && !exact)
    return notTheSlice(`unexpected length in slice response: ${stated.length ?? 'none'} while expecting ${length}`);
  if (stated.body === null) return notTheSlice('no body in slice response');
  return { ok: true, body: stated.body, exact };
}

/**
 * Whether a next hop answering a slice of a pinned version with the object whole, with `status`, is evidence of another
 * version: a 200 (no longer sliced), 404 or 410 (no longer there). Anything else (a 5xx, a 429) is the hop's failure,
 * which says nothing of the version: the read fails and the manifest stays.
 */
export function wholeMeansAnotherVersion(status: number): boolean {
  return status === 200 || status === 404 || status === 410;
}

/**
 * Whether `stated` is of the version `pinned` (undefined: any is): the same entity-tag, compared strongly (RFC 9110
 * §8.8.3.2), or the same Last-Modified and length, and the same size, as nginx holds every slice
 * to slice 0's. All there is to check of an answer that holds no bytes (a 416, RFC 9110 §15.5.17).
 */
export function checkVersion(
  pinned: ObjectVersion | undefined,
  stated: Pick<SliceStatement<unknown>, 'etag' | 'size'>,
): { ok: true } | NotTheSlice {
  if (pinned === undefined) return { ok: true };
  if (stated.etag !== pinned.etag)
    return notTheSlice(`etag mismatch in slice response: ${stated.etag ?? 'none'} while expecting ${pinned.etag}`);
  if (stated.size !== pinned.size)
    return notTheSlice(`size mismatch in slice response: ${stated.size ?? 'none'} while expecting ${pinned.size}`);
  return { ok: true };
}

function notTheSlice(why: string): NotTheSlice {
  return { ok: false, why };
}

function spanOf(range: ByteRange): string {
  return `${range.start}-${range.end}`;
}
