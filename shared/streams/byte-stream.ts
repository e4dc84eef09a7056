// Byte plumbing for ranged answers: the wanted byte ranges cut out of a run of pieces (slices, or a
// whole object at 0) and written into the answer's body, every piece counted.

import { LengthMismatch, ReaderGone } from '../http/errors.ts';
import type { ByteRange } from '../http/range.ts';
import { asError } from './as-error.ts';
import { type BodySource, bodySource } from './body-source.ts';
import { identityPipe, type PipeWriter } from './identity-pipe.ts';
import { isNativeBody, pipesNatively } from './native-body.ts';
import { CHUNK_BYTES } from './pump-into.ts';

type Bytes = Uint8Array;

/** A run of the object's bytes starting at `offset`: a slice, or a whole object at 0. */
export interface Piece {
  offset: number;
  length: number;
  body: ReadableStream<Bytes>;
  /**
   * Hears that the body did not hold exactly `length` bytes (a stored slice that read wrong is then
   * forgotten). A piece that ends short or runs long fails the answer: never a shifted byte passed on.
   */
  onInexact?(): void;
}

/**
 * The bytes of `ranges` (sorted, disjoint) taken from `pieces` (in object order), each range
 * preceded by its entry in `heads` if given, then `tail`: a single range, or the body of a
 * multipart/byteranges response. `length`, when known, is the exact total, carried on the
 * wire. Once the stream fails (a piece broke, or the reader went away: then with ReaderGone),
 * `pieces.throw()` gives the read up; when it is done, `pieces.return()`.
 */
export function rangesStream(
  pieces: AsyncIterator<Piece>,
  ranges: readonly ByteRange[],
  heads: readonly Bytes[] = [],
  tail?: Bytes,
  length?: number,
): ReadableStream<Bytes> {
  const pipe = identityPipe(length);
  void pumpRanges(pieces, ranges, heads, tail, pipe.writer);
  return pipe.readable;
}

/** A piece being read: the object offset of its next unread byte, and bytes read but kept for the next range. */
interface Reading {
  piece: Piece;
  source: BodySource;
  position: number;
  kept: Bytes | undefined;
}

/**
 * One pump: each piece read into a reused buffer (body-source.ts: large reads, no chunk left for the
 * collector), and the bytes a range wants written on, each write awaited.
 */
async function pumpRanges(
  pieces: AsyncIterator<Piece>,
  ranges: readonly ByteRange[],
  heads: readonly Bytes[],
  tail: Bytes | undefined,
  pipe: PipeWriter,
): Promise<void> {
  const out = readerSide(pipe);
  let current: Reading | undefined;
  let buffer: Bytes = new Uint8Array(CHUNK_BYTES);
  const nextPiece = async (): Promise<Piece> => {
    const next = await pieces.next();
    if (next.done) throw new LengthMismatch('ran out of slices before the range ended');
    return next.value;
  };
  try {
    for (const [index, range] of ranges.entries()) {
      const head = heads[index];
      if (head) await out.write(head);
      let position = range.start;
      while (position <= range.end) {
        if (current === undefined || current.piece.offset + current.piece.length <= position) {
          discard(current);
          current = undefined;
          const piece = await nextPiece();
          if (wholeIn(piece, position, range.end)) {
            // Every byte of it is wanted, and it is exact already: the runtime moves it.
            await piped(piece, out);
            position = piece.offset + piece.length;
          } else {
            current = {
              piece,
              source: bodySource(piece.body, { length: piece.length }),
              position: piece.offset,
              kept: undefined,
            };
          }
          continue;
        }
        const start = current.position;
        let chunk = current.kept;
        current.kept = undefined;
        if (chunk === undefined) {
          chunk = await readPiece(current, buffer);
          buffer = new Uint8Array(chunk.buffer);
        }
        current.position += chunk.byteLength;
        const end = start + chunk.byteLength - 1;
        const from = Math.max(position, start);
        const to = Math.min(range.end, end);
        if (from <= to) {
          await out.write(chunk.subarray(from - start, to - start + 1));
          position = to + 1;
        }
        // Bytes past this range may belong to the next one: kept (copied, as the buffer is reused).
        if (to < end) {
          current.kept = chunk.slice(Math.max(0, to - start + 1));
          current.position = Math.max(start, to + 1);
        }
      }
    }
    if (tail) await out.write(tail);
    discard(current);
    await pieces.return?.();
    await out.close();
  } catch (error) {
    discard(current, error);
    await (pieces.throw ?? pieces.return)?.call(pieces, error).catch(() => undefined);
    await out.abort(asError(error));
  }
}

/**
 * Whether all of the piece lies within the bytes wanted from `position` to `end`, and the
 * runtime may pipe it: a body it made (native-body.ts), into an answer whose pipe carries its
 * length (workerd's; elsewhere every piece is counted by JavaScript).
 */
function wholeIn(piece: Piece, position: number, end: number): boolean {
  return (
    piece.offset === position && piece.offset + piece.length - 1 <= end && isNativeBody(piece.body) && pipesNatively()
  );
}

/**
 * The whole piece into `out`, natively. A failure of the piece's is told (it is forgotten, should it be stored); one
 * of its reader's is not: the piece was read exactly as far as it was taken, and the next reader finds it stored.
 */
async function piped(piece: Piece, out: PipeWriter): Promise<void> {
  try {
    await out.pipeFrom(piece.body);
  } catch (error) {
    if (!(error instanceof ReaderGone)) piece.onInexact?.();
    throw error;
  }
}

/**
 * `pipe`, its failures told apart for the read they end: a write that the pipe refused as ours (a TypeError: a
 * FixedLengthStream refusing bytes past its length, or a close short of it) stays what it is; any other is its reader
 * gone (workerd rejects with `Network connection lost.` whether a client or a service binding's caller left,
 * measured). A native pipe does not say which end failed (both reject alike): its pieces are this tier's stored
 * bodies, counted when they were put, so a failure that is no length's is taken for the reader's.
 */
function readerSide(pipe: PipeWriter): PipeWriter {
  const told = (error: unknown): never => {
    throw error instanceof TypeError ? error : new ReaderGone(error);
  };
  return {
    write: (bytes) => pipe.write(bytes).catch(told),
    close: () => pipe.close().catch(told),
    abort: (reason) => pipe.abort(reason),
    pipeFrom: (body) => pipe.pipeFrom(body).catch(told),
  };
}

/** The piece's next bytes into `buffer`; a piece that ends before its length fails (and says so). */
async function readPiece(current: Reading, buffer: Bytes): Promise<Bytes> {
  let view: Bytes | undefined;
  try {
    view = await current.source.read(buffer);
  } catch (error) {
    if (error instanceof LengthMismatch) current.piece.onInexact?.();
    throw error;
  }
  if (view === undefined) {
    // Its length is read to the end only when a range needs every byte of it; asking for more is a bug upstream.
    throw new LengthMismatch(`a slice at ${current.piece.offset} ended before the range did`);
  }
  return view;
}

/** The rest of a piece nobody needs: let go of. */
function discard(current: Reading | undefined, reason?: unknown): void {
  current?.source.cancel(reason);
}
