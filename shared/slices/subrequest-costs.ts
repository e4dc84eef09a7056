// What each step of a read costs in subrequests (Workers cap them per request: SUBREQUEST_LIMIT), named once for
// every budget reckoned against them: the slice reader's, the shield's warm, the edge's whole copy and spans.

/** A lookup in a tier's own cache: a slice, a manifest, the whole copy. */
export const LOOKUP = 1;
/** A request to the next hop for bytes: a span of slices (however many it holds), or the rest of one from an offset. */
export const FETCH = 1;
/** A put into a tier's own cache. */
export const PUT = 1;
/** Reading back what a tier has just stored: a slice read ahead, or the rest of a fill its reader fell behind. */
const READ_BACK = 1;
/** Asking the next hop to store a slice without sending it (the edge's warm at the shield). */
const WARM = 1;
/** Fetching from the next hop's cache the slice its warm stored (the copy's request; its put is PUT). */
const COPY = 1;

/** A slice fetched and stored as it passes (fill.ts): its put, and a read back should its reader fall behind. */
export const FILL_STORE = PUT + READ_BACK;
/** A slice read ahead through the caches (read-ahead.ts): the warm, the copy, the copy's put, the read back. */
export const READ_AHEAD = WARM + COPY + PUT + READ_BACK;
/** A slice the edge reads and stores, at most: its lookup, then read ahead through the caches. */
export const SLICE_READ = LOOKUP + READ_AHEAD;
/** A slice the shield stores for the edge's warm: its lookup, the origin's fetch, the put. */
export const WARMED_SLICE = LOOKUP + FETCH + PUT;
