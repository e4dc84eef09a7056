// Byte plumbing for slices, in Web streams only: cut the wanted byte ranges out of a run of
// slices (split-stream.ts cuts one upstream body into its slices). Every length is checked: a
// body that ends early or runs long errors the stream, so a short slice is never stored and a
// client never gets a silently truncated body.

import { LengthMismatch } from './counted-body.ts';
import type { ByteRange } from './range.ts';

type Bytes = Uint8Array;

/** A run of the object's bytes starting at `offset`: a slice, or a whole object at 0. */
export interface Piece {
  offset: number;
  length: number;
  body: ReadableStream<Bytes>;
}

/**
 * The bytes of `ranges` (sorted, disjoint) taken from `pieces` (in object order), each range
 * preceded by its entry in `heads` if given, then `tail`: a single range, or the body of a
 * multipart/byteranges response. A piece that lies wholly inside a range is piped as it is;
 * only the pieces a range starts or ends in are cut. Every piece must error rather than end
 * short (counted-body.ts); `length`, when known, is the exact total, enforced in workerd.
 * Once the stream fails (a piece broke, or the reader went away), `pieces.throw()` gives the
 * read up; when it is done, `pieces.return()`.
 */
export function rangesStream(pieces: AsyncIterator<Piece>, ranges: readonly ByteRange[], heads: readonly Bytes[] = [], tail?: Bytes, length?: number): ReadableStream<Bytes> {
  const { readable, writable } = lengthChecked(length);
  void pumpRanges(pieces, ranges, heads, tail, writable);
  return readable;
}

async function pumpRanges(pieces: AsyncIterator<Piece>, ranges: readonly ByteRange[], heads: readonly Bytes[], tail: Bytes | undefined, writable: WritableStream<Bytes>): Promise<void> {
  let writer: WritableStreamDefaultWriter<Bytes> | undefined = writable.getWriter();
  let current: Reading | undefined;
  const nextPiece = async (): Promise<Reading> => {
    const next = await pieces.next();
    if (next.done) throw new LengthMismatch('ran out of slices before the range ended');
    return { piece: next.value, reader: undefined, position: next.value.offset, pending: undefined };
  };
  try {
    for (const [index, range] of ranges.entries()) {
      const head = heads[index];
      if (head) await writer.write(head);
      let position = range.start;
      while (position <= range.end) {
        if (current === undefined || current.piece.offset + current.piece.length <= position) {
          await discard(current);
          current = await nextPiece();
          continue;
        }
        const pieceEnd = current.piece.offset + current.piece.length - 1;
        if (current.reader === undefined && current.pending === undefined && current.piece.offset === position && pieceEnd <= range.end) {
          // Wholly inside the range: pipe it as it is.
          writer.releaseLock();
          writer = undefined;
          await current.piece.body.pipeTo(writable, { preventClose: true });
          writer = writable.getWriter();
          position = pieceEnd + 1;
          current = undefined;
          continue;
        }
        const { chunk, start } = await readFrom(current, pieceEnd);
        const end = start + chunk.byteLength - 1;
        const from = Math.max(position, start);
        const to = Math.min(range.end, end);
        if (from <= to) {
          await writer.write(from === start && to === end ? chunk : chunk.subarray(from - start, to - start + 1));
          position = to + 1;
        }
        // Bytes past this range may belong to the next one: keep them for it.
        if (to < end) {
          current.pending = chunk.subarray(to - start + 1);
          current.position = to + 1;
        }
      }
    }
    if (tail) await writer.write(tail);
    await discard(current);
    await pieces.return?.();
    await writer.close();
  } catch (error) {
    await discard(current, error);
    await (pieces.throw ?? pieces.return)?.call(pieces, error).catch(() => undefined);
    if (writer === undefined) writer = writable.getWriter();
    await writer.abort(error).catch(() => undefined);
  }
}

/** A piece being read: the object offset of its next unread byte, and bytes read but not yet used. */
interface Reading {
  piece: Piece;
  reader: ReadableStreamDefaultReader<Bytes> | undefined;
  position: number;
  pending: Bytes | undefined;
}

/** The next bytes of the piece (what was kept over first), with the object offset of the first. */
async function readFrom(current: Reading, pieceEnd: number): Promise<{ chunk: Bytes; start: number }> {
  const start = current.position;
  if (current.pending !== undefined) {
    const chunk = current.pending;
    current.pending = undefined;
    current.position += chunk.byteLength;
    return { chunk, start };
  }
  current.reader ??= current.piece.body.getReader();
  const { done, value } = await current.reader.read();
  if (done) throw new LengthMismatch(`a slice ended ${pieceEnd - current.position + 1} bytes early`);
  current.position += value.byteLength;
  return { chunk: value, start };
}

async function discard(current: Reading | undefined, reason?: unknown): Promise<void> {
  if (current === undefined) return;
  await (current.reader ?? current.piece.body).cancel(reason).catch(() => undefined);
}

/** An identity stream; in workerd of exactly `length` bytes when given (see withLength). */
function lengthChecked(length: number | undefined): TransformStream<Bytes, Bytes> {
  const Fixed = fixedLengthStream();
  return length !== undefined && Fixed !== undefined ? new Fixed(length) : new TransformStream<Bytes, Bytes>();
}

function fixedLengthStream(): (new (length: number) => TransformStream<Bytes, Bytes>) | undefined {
  return (globalThis as { FixedLengthStream?: new (length: number) => TransformStream<Bytes, Bytes> }).FixedLengthStream;
}

/**
 * `body` as a stream of exactly `length` bytes. In workerd a FixedLengthStream makes the
 * response carry Content-Length instead of chunked encoding (a JS stream alone has no length),
 * and errors if the source ends short or runs long. Elsewhere (unit tests) the body is returned as is.
 */
export function withLength(body: ReadableStream<Bytes>, length: number): ReadableStream<Bytes> {
  const Fixed = fixedLengthStream();
  if (Fixed === undefined) return body;
  const { readable, writable } = new Fixed(length);
  body.pipeTo(writable).catch(() => undefined);
  return readable;
}
