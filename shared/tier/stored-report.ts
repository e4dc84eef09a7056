// What a tier's Cache-Status member says of `stored` when its head goes out (RFC 9211 §2.5: "the cache stored the
// response"): only what is stored by then. A body stored as it streams to the client goes out before it has all
// arrived, and the next hop may still cut it; `stored` said at the head would then be untrue, and there is no
// trailer to take it back in (a Worker's Response sends none).

import type { Resolved } from './resolved.ts';

/**
 * A body of at most this many bytes, of known length, is waited for until it is stored (or not) before its head goes
 * out, and its member says `stored` when it was: one TLS record's worth (RFC 8446 §5.1: 2^14 bytes), which commonly
 * arrives with its head or in the read after, so the wait is the store's put, and the client, which needs every byte
 * anyway, gets the last one no later. A longer body's head goes out at once and says nothing of storing it: an
 * omitted `stored` claims nothing (§2.5), and no larger miss waits.
 */
export const STORED_KNOWN_BYTES = 16 * 1024;

/** A whole body of known length being stored as it streams: whether it was, once it is over. */
export interface Storing {
  length: number;
  stored: Promise<boolean>;
}

/**
 * A fill's answer as its head may go out: a body stored as it streams says `stored` only once it is, which is known
 * now for one of at most STORED_KNOWN_BYTES (waited for), and never for a longer one.
 */
export async function withKnownStored<Filled extends { resolved: Resolved; storing?: Storing | undefined }>(
  filled: Filled,
): Promise<Filled> {
  const { resolved, storing } = filled;
  if (storing === undefined) return filled;
  const stored = storing.length <= STORED_KNOWN_BYTES && (await storing.stored);
  return { ...filled, resolved: { ...resolved, report: { ...resolved.report, stored } } };
}
