// Sums over records (Totals, stats-json.ts): the one way counts are made and added, so that a
// batch, a minute's bucket and the view all add the same fields and none is ever forgotten.

import type { TierRecord } from './record.ts';
import type { Totals } from './stats-json.ts';

/** Every field of Totals, for code that walks them (adding, checking what crossed the wire). */
export const TOTAL_FIELDS: readonly (keyof Totals)[] = [
  'requests',
  'bytesSent',
  'bytesFromNextHop',
  'bytesFromOrigin',
  'ttfbMsSum',
  'durationMsSum',
  'slicesHit',
  'slicesMissed',
  'departed',
];

export function emptyTotals(): Totals {
  return {
    requests: 0,
    bytesSent: 0,
    bytesFromNextHop: 0,
    bytesFromOrigin: 0,
    ttfbMsSum: 0,
    durationMsSum: 0,
    slicesHit: 0,
    slicesMissed: 0,
    departed: 0,
  };
}

/** One record as a sum of one request. */
export function recordTotals(record: TierRecord): Totals {
  return {
    requests: 1,
    bytesSent: record.bytesSent,
    bytesFromNextHop: record.bytesFromNextHop,
    bytesFromOrigin: record.bytesFromOrigin,
    ttfbMsSum: record.ttfbMs,
    durationMsSum: record.durationMs,
    slicesHit: record.slicesHit,
    slicesMissed: record.slicesMissed,
    departed: record.departed ? 1 : 0,
  };
}

/** Adds one record into `into` (in place, allocating nothing: the batch does this once per request). */
export function addRecordInto(into: Totals, record: TierRecord): void {
  into.requests += 1;
  into.bytesSent += record.bytesSent;
  into.bytesFromNextHop += record.bytesFromNextHop;
  into.bytesFromOrigin += record.bytesFromOrigin;
  into.ttfbMsSum += record.ttfbMs;
  into.durationMsSum += record.durationMs;
  into.slicesHit += record.slicesHit;
  into.slicesMissed += record.slicesMissed;
  into.departed += record.departed ? 1 : 0;
}

/** Adds `from` into `into` (in place). */
export function addInto(into: Totals, from: Totals): void {
  into.requests += from.requests;
  into.bytesSent += from.bytesSent;
  into.bytesFromNextHop += from.bytesFromNextHop;
  into.bytesFromOrigin += from.bytesFromOrigin;
  into.ttfbMsSum += from.ttfbMsSum;
  into.durationMsSum += from.durationMsSum;
  into.slicesHit += from.slicesHit;
  into.slicesMissed += from.slicesMissed;
  // A bucket the stats store kept from a release before departures were counted has none.
  into.departed += from.departed ?? 0;
}

/** The Totals fields of a row that carries more (a row's own copy: the row itself is left as it is). */
export function totalsOf(row: Totals): Totals {
  const totals = emptyTotals();
  addInto(totals, row);
  return totals;
}

/** The sum of many. */
export function sumTotals(rows: Iterable<Totals>): Totals {
  const totals = emptyTotals();
  for (const row of rows) addInto(totals, row);
  return totals;
}
