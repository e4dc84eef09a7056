// How a read of pieces ended (shared/streams/pieces-end.ts): heard from the read's own ends, without a byte
// passing through it.

import { describe, expect, it } from 'vitest';
import { LengthMismatch, ReaderGone } from '../../../shared/http/errors.ts';
import type { Piece } from '../../../shared/streams/byte-stream.ts';
import { piecesEnd } from '../../../shared/streams/pieces-end.ts';

/** Pieces that say how they were let go of. */
function recorded(): { pieces: AsyncIterator<Piece>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    pieces: {
      next: async () => {
        calls.push('next');
        return { done: true, value: undefined };
      },
      return: async () => {
        calls.push('return');
        return { done: true, value: undefined };
      },
      throw: async (error: unknown) => {
        calls.push(`throw ${(error as Error).name}`);
        return { done: true, value: undefined };
      },
    },
  };
}

describe('piecesEnd', () => {
  it('a read handed back when done (a range that ended) did not lose its reader', async () => {
    const { pieces, calls } = recorded();
    const watched = piecesEnd(pieces);
    await watched.pieces.next();
    await watched.pieces.return?.();
    expect(await watched.ended).toEqual({ departed: false });
    expect(calls).toEqual(['next', 'return']);
  });

  it('a read given up because its reader went away departed; one given up because a piece failed did not', async () => {
    const left = recorded();
    const gone = piecesEnd(left.pieces);
    await gone.pieces.throw?.(new ReaderGone(new Error('Network connection lost.')));
    expect(await gone.ended).toEqual({ departed: true });
    expect(left.calls).toEqual(['throw ReaderGone']);
    const broken = recorded();
    const failed = piecesEnd(broken.pieces);
    await failed.pieces.throw?.(new LengthMismatch('short'));
    expect(await failed.ended).toEqual({ departed: false });
    expect(broken.calls).toEqual(['throw LengthMismatch']);
  });

  it('hears only the first end, and gives a read without return or throw its end all the same', async () => {
    const watched = piecesEnd({ next: async () => ({ done: true, value: undefined }) });
    await watched.pieces.throw?.(new ReaderGone(undefined));
    await watched.pieces.return?.();
    expect(await watched.ended).toEqual({ departed: true });
  });
});
