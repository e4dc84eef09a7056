// A span's bytes as a tier answers the tier in front of it: which bytes of the version a span asks (or their rest from
// an offset), the slices holding them, and those bytes cut from the slice reader's pieces. Pure over the read's
// pieces: the shield (shield/slice-answer.ts) and a tier behind another in one isolate (tier-hop.ts) cut alike.

import { BadRequest, LengthMismatch } from '../http/errors.ts';
import type { ByteRange } from '../http/range.ts';
import type { ObjectMeta } from '../slices/object-meta.ts';
import { type SliceSpan, sliceCount, spanBytes } from '../slices/slice-plan.ts';
import { type Piece, rangesStream } from '../streams/byte-stream.ts';
import { piecesEnd } from '../streams/pieces-end.ts';
import type { ObjectRead } from './ports.ts';

/** The slices of a span a tier answers: the span's first and last, its bytes, the slices that hold them. */
export interface WantedSlices {
  span: SliceSpan;
  /** The span's bytes, or their rest from `from` on (the tier in front healing a body that broke). */
  bytes: ByteRange;
  /** The slices holding `bytes`, in order. */
  indices: number[];
}

/**
 * `asked` of the version `meta` describes, ending at the object's last slice, from byte `from` of it; a 400 when the
 * span holds fewer bytes than `from`. The span must start within the object (the caller answers beyond first).
 */
export function wantedSlices(asked: SliceSpan, from: number | undefined, meta: ObjectMeta): WantedSlices {
  const count = sliceCount(meta.size, meta.sliceSize);
  const span = { first: asked.first, last: Math.min(asked.last, count - 1) };
  const all = spanBytes(span, meta.sliceSize, meta.size);
  const bytes = { start: all.start + (from ?? 0), end: all.end };
  if (bytes.start > bytes.end)
    throw new BadRequest(
      `the span ${span.first}-${span.last} holds ${all.end - all.start + 1} bytes, not ${from} and more`,
    );
  const firstNeeded = Math.floor(bytes.start / meta.sliceSize);
  const indices = Array.from({ length: span.last - firstNeeded + 1 }, (_, i) => firstNeeded + i);
  return { span, bytes, indices };
}

/**
 * The answer's body. One whole slice (what the edge asks for, one request per slice) is that
 * slice's own body, handed on as it is: its stored bytes, or the fill streaming it from the
 * next hop (its length on the wire), and the tier in front counts what arrives. Anything else is cut from
 * the pieces (rangesStream).
 */
export async function spanBody(
  pieces: AsyncIterator<Piece>,
  bytes: ByteRange,
  slices: number,
  read: Pick<ObjectRead, 'bodyEnd'>,
): Promise<ReadableStream<Uint8Array>> {
  const length = bytes.end - bytes.start + 1;
  let cut = pieces;
  if (slices === 1) {
    const first = await pieces.next();
    if (!first.done && first.value.offset === bytes.start && first.value.length === length) {
      await pieces.return?.();
      return first.value.body;
    }
    cut = prepend(first, pieces);
  }
  // Cut by the pump, which hears whether the tier in front went away before the end (the record says).
  const watched = piecesEnd(cut);
  read.bodyEnd?.(watched.ended);
  return rangesStream(watched.pieces, [bytes], [], undefined, length);
}

/** `pieces` with `first`, already taken, handed out again first. */
function prepend(first: IteratorResult<Piece>, pieces: AsyncIterator<Piece>): AsyncIterator<Piece> {
  let given = false;
  return {
    next: () => {
      if (given) return pieces.next();
      given = true;
      return Promise.resolve(first);
    },
    return: () => pieces.return?.() ?? Promise.resolve({ done: true, value: undefined }),
    throw: (error: unknown) => pieces.throw?.(error) ?? Promise.resolve({ done: true, value: undefined }),
  };
}

/**
 * `body`, erroring unless exactly `length` bytes pass: across HTTP the answer's Content-Length makes a short or long
 * body fail (the runtime checks it), in one isolate nothing does, so a tier in front never takes one as whole.
 */
export function exactly(body: ReadableStream<Uint8Array>, length: number): ReadableStream<Uint8Array> {
  let passed = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        passed += chunk.byteLength;
        if (passed > length) throw new LengthMismatch(`the span ran past its ${length} bytes`);
        controller.enqueue(chunk);
      },
      flush() {
        if (passed < length) throw new LengthMismatch(`the span ended after ${passed} of its ${length} bytes`);
      },
    }),
  );
}
