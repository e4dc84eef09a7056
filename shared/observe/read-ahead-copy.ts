// A slice the edge reads ahead takes two shield invocations (shared/tier/slice-reader/read-ahead.ts): the
// warm, which looks it up and fetches it from the origin if it must, and stores it there; then
// the edge's copy of it, a hit of what the warm stored. Both are one request of the edge's for
// that slice, and each tier counts it once, with what it really was: the warm carries the record
// (what it found, what it fetched, and as sent the slice it stored, which the copy hands on),
// and the copy, answered from what the warm stored, is counted with it (record.ts readAheadCounted
// at the shield, request-meter.ts at the edge). The edge marks the copy with this header; a
// client's x-tiercache- fields never reach the shield (shared/http/headers.ts).

/** On a slice request from the edge: it copies a slice a warm of its own stored at the shield. */
export const COPY_HEADER = 'x-tiercache-copy';
