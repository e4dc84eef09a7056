// The header that marks the edge's copy of a slice it read ahead, so that each tier counts that slice once.

/**
 * On a slice request from the edge: it copies a slice a warm of its own stored at the shield.
 *
 * A slice read ahead takes two shield invocations (shared/tier/slice-reader/read-ahead.ts): the warm, which looks
 * it up, fetches it from the origin if it must and stores it; then this copy, a hit of what the warm stored. Both
 * are one request of the edge's, counted once by each tier with what it really was: the warm carries the record
 * (what it found, what it fetched, and as sent the slice it stored, which the copy hands on), and the copy is
 * counted with it (record.ts readAheadCounted at the shield, request-meter.ts at the edge). A client's
 * x-tiercache- fields never reach the shield (shared/http/headers.ts), so only the edge can set this.
 */
export const COPY_HEADER = 'x-tiercache-copy';
