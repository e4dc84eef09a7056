// The isolate's read-ahead: slices started ahead of their reader (not the one each reader needs
// next) are counted against one pool shared by every request the isolate serves. A share is
// held while its slice is on its way into the store (or taken by its reader), so N cold
// downloads in one isolate share one window of fetches, and each still has its next slice.
// Module state: one pool per isolate (each tier is its own isolate, with its own pool).

import type { ReadaheadPool } from './ports.ts';

const pool: ReadaheadPool = { limit: 0, inUse: 0 };

/** This isolate's pool for a tier reading `window` slices at a time: one window's worth ahead in all. */
export function isolateReadahead(window: number): ReadaheadPool {
  pool.limit = Math.max(0, window - 1);
  return pool;
}
