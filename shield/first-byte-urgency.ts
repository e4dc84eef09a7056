// Which of the edge's requests the shield treats as urgent (shared/tier/slice-reader/isolate-pool.ts Urgency): while
// one waits for its first byte, the shield's warms (slice-warm.ts) start no origin fetch, as the edge's read-ahead
// waits for the edge's own urgent requests. Pure: what kind of request it is decides.

import type { ReadAheadPart } from '../shared/stats/record.ts';

/**
 * Whether a request of the edge waits for a byte a client needs now. A warm (the edge reading ahead: nobody waits for
 * its slice yet) never does, and a copy (the edge fetching what a warm stored here: a hit, which no origin fetch
 * slows) need not; every other request does: a slice at the edge's reader, discovery, a plain GET, a HEAD.
 */
export function urgentAtShield(readAhead: ReadAheadPart | undefined): boolean {
  return readAhead === undefined;
}
