// How a read of pieces ended, heard from its ends (byte-stream.ts returns a read once done, throws into it when it
// failed): `departed` when it was given up because the answer's reader went away (ReaderGone), else not.

import { ReaderGone } from '../http/errors.ts';
import type { Piece } from './byte-stream.ts';

/** `pieces` as they are, and a promise of how their read ended; it never rejects. */
export function piecesEnd(pieces: AsyncIterator<Piece>): {
  pieces: AsyncIterator<Piece>;
  ended: Promise<{ departed: boolean }>;
} {
  let end: (outcome: { departed: boolean }) => void = () => undefined;
  const ended = new Promise<{ departed: boolean }>((resolve) => {
    end = resolve;
  });
  return {
    pieces: {
      next: () => pieces.next(),
      return: (value?: unknown) => {
        end({ departed: false });
        return pieces.return?.(value) ?? Promise.resolve({ done: true, value: undefined });
      },
      throw: (error?: unknown) => {
        end({ departed: error instanceof ReaderGone });
        return (
          (pieces.throw ?? pieces.return)?.call(pieces, error) ?? Promise.resolve({ done: true, value: undefined })
        );
      },
    },
    ended,
  };
}
