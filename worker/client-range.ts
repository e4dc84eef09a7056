// The client's side of a GET at the edge (RFC 9110 §14): which bytes to send and how to frame
// them, 200 whole, 206 with Content-Range, 206 multipart/byteranges, or 416.

import { BOUNDARY_BYTES, boundaryFrom, planMultipart } from '../shared/http/multipart.ts';
import { type ByteRange, contentRange, evaluateRange, ifRangeAllows, unsatisfiedRange } from '../shared/http/range.ts';
import { type Piece, rangesStream } from '../shared/streams/byte-stream.ts';

export type RangePlan =
  | { kind: 'full'; ranges: ByteRange[] }
  | { kind: 'partial'; ranges: ByteRange[] }
  | { kind: 'unsatisfiable' };

/** What to send for `size` bytes given the client's Range and If-Range (RFC 9110 §13.1.5, §14.2). */
export function planRanges(request: Headers, size: number, representation: Headers): RangePlan {
  const full: RangePlan = { kind: 'full', ranges: size > 0 ? [{ start: 0, end: size - 1 }] : [] };
  const range = request.get('range');
  if (range === null) return full;
  // §13.1.5: a false If-Range condition means "send the whole representation".
  const validators = { etag: representation.get('etag'), lastModified: representation.get('last-modified') };
  if (!ifRangeAllows(request.get('if-range'), validators)) return full;
  const verdict = evaluateRange(range, size);
  if (verdict.kind === 'none') return full;
  if (verdict.kind === 'unsatisfiable') return { kind: 'unsatisfiable' };
  return { kind: 'partial', ranges: verdict.ranges };
}

/** The slice the first byte a request wants lives in, read off the raw header (size unknown yet). */
export function firstSliceHint(request: Headers, sliceSize: number): number {
  const first = /^\s*bytes\s*=\s*(\d{1,15})\s*-/i.exec(request.get('range') ?? '');
  return first ? Math.floor(Number(first[1]) / sliceSize) : 0;
}

/** Status, framing headers and body for `plan` over `pieces` (the object's bytes, in order). */
export function framedBody(
  plan: Exclude<RangePlan, { kind: 'unsatisfiable' }>,
  size: number,
  contentType: string | null,
  pieces: AsyncIterator<Piece>,
): { status: number; headers: Headers; body: ReadableStream<Uint8Array> } {
  const one = oneRange(plan, size);
  if (one !== undefined) {
    const length = one.range.end - one.range.start + 1;
    return { status: one.status, headers: one.headers, body: rangesStream(pieces, plan.ranges, [], undefined, length) };
  }
  const headers = new Headers({ 'accept-ranges': 'bytes' });
  const multipart = planMultipart(
    plan.ranges,
    size,
    contentType,
    boundaryFrom(crypto.getRandomValues(new Uint8Array(BOUNDARY_BYTES))),
  );
  headers.set('content-type', multipart.contentType);
  headers.set('content-length', String(multipart.contentLength));
  const heads = multipart.parts.map((part) => part.head);
  return {
    status: 206,
    headers,
    body: rangesStream(pieces, plan.ranges, heads, multipart.tail, multipart.contentLength),
  };
}

/**
 * Status and framing when `plan` sends every byte of the object in one piece, in order: a 200,
 * or a 206 whose one range is the whole (a browser's `bytes=0-`); undefined for anything less.
 */
export function wholeInOnePiece(plan: RangePlan, size: number): { status: 200 | 206; headers: Headers } | undefined {
  if (plan.kind === 'unsatisfiable' || size <= 0) return undefined;
  const one = oneRange(plan, size);
  return one !== undefined && one.range.start === 0 && one.range.end === size - 1 ? one : undefined;
}

/** A 200, or a 206 of a single range: its status and framing; undefined for multipart. */
function oneRange(
  plan: Exclude<RangePlan, { kind: 'unsatisfiable' }>,
  size: number,
): { status: 200 | 206; headers: Headers; range: ByteRange } | undefined {
  const [only] = plan.ranges;
  if (plan.kind === 'partial' && (plan.ranges.length !== 1 || only === undefined)) return undefined;
  const range = only ?? { start: 0, end: -1 };
  const headers = new Headers({ 'accept-ranges': 'bytes', 'content-length': String(range.end - range.start + 1) });
  if (plan.kind === 'full') return { status: 200, headers, range };
  headers.set('content-range', contentRange(range, size));
  return { status: 206, headers, range };
}

export function unsatisfiable(size: number): Headers {
  return new Headers({ 'content-range': unsatisfiedRange(size), 'accept-ranges': 'bytes' });
}

/** The pieces of a whole body: one, at offset 0 (counted against its length as it is cut, by rangesStream). */
export function wholePieces(body: ReadableStream<Uint8Array>, length: number): AsyncIterator<Piece> {
  let given = false;
  return {
    next: async () => {
      if (given) return { done: true, value: undefined };
      given = true;
      return { done: false, value: { offset: 0, length, body } };
    },
    return: async () => {
      if (!given) await body.cancel();
      given = true;
      return { done: true, value: undefined };
    },
  };
}
