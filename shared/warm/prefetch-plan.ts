// Which segments the shield warms after a client read one (docs/warming.md "The next segments at the shield"): how
// far ahead a viewer's player reads, which of those segments are worth a fetch, and whether the viewer is still there.
// Pure: a rendition's order, what a read saw and the time in; keys out. The isolate's own budget is prefetch-budget.ts.

/**
 * A player that asks for the next segment sooner than this share of a segment's duration after the one before is
 * filling its buffer (a start, a seek): it will read several segments in the time one plays. One that asks about a
 * segment's duration apart plays in real time.
 */
const FILLING_SHARE = 0.5;
/**
 * A rendition none of whose segments a client asked for within this many segment durations has no viewer left here:
 * no prefetch for it is started (a player reads one a duration; three missed is a player gone, paused or switched).
 */
export const IDLE_SEGMENTS = 3;

/**
 * How many segments after the one just read (at `index`) to have at the shield: `max` (PREFETCH_SEGMENTS) for a player
 * filling its buffer (starting at the first segment, or asking for this one less than FILLING_SHARE of a duration after
 * the one before), one for a player reading in real time (the origin's round trip is far shorter than a segment: one
 * ahead is there before it is asked for, and a viewer who leaves or switches rendition leaves one unread), none when
 * `max` is 0. Never more than the player would read meanwhile.
 */
export function segmentsAhead(
  max: number,
  read: { index: number; previousReadAt: number | undefined; now: number; targetMs: number },
): number {
  if (max <= 0) return 0;
  const { index, previousReadAt, now, targetMs } = read;
  const filling = index === 0 || (previousReadAt !== undefined && now - previousReadAt < targetMs * FILLING_SHARE);
  return filling ? max : 1;
}

/** Whether a client of the rendition read a segment within IDLE_SEGMENTS durations: someone is still watching. */
export function stillWatched(lastReadAt: number, now: number, targetMs: number): boolean {
  return now - lastReadAt <= targetMs * IDLE_SEGMENTS;
}

/** What one read asks of the plan. */
export interface PlanAsk {
  /** The rendition's segment keys, in the order a player reads them. */
  segments: readonly string[];
  /** Where the segment just read is in it. */
  index: number;
  /** How many after it to have at the shield (segmentsAhead). */
  ahead: number;
  /** Whether a segment is stored at the shield or on its way there (a prefetch under way): not fetched again. */
  present(key: string): boolean;
  /** How many prefetches the isolate's budget lets start now (prefetch-budget.ts). */
  room: number;
}

/**
 * The segments to prefetch, nearest first (the one the player asks for next is the one that must be there first):
 * those of the `ahead` after `index` that are not present, at most `room` of them, none past the rendition's end.
 */
export function prefetchPlan(ask: PlanAsk): string[] {
  const plan: string[] = [];
  const last = Math.min(ask.segments.length - 1, ask.index + ask.ahead);
  for (let at = ask.index + 1; at <= last && plan.length < ask.room; at++) {
    const key = ask.segments[at];
    if (key !== undefined && !ask.present(key) && !plan.includes(key)) plan.push(key);
  }
  return plan;
}
