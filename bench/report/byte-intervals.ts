// Byte intervals of one object that an origin served, folded: how many bytes it sent, how many distinct bytes, and
// how many it sent more than once. Pure: the egress bench (bench/egress.ts) and the browser run judge with it.

/** Bytes `start` up to, not including, `end` of one object; an empty or inverted one covers nothing. */
export interface ByteInterval {
  start: number;
  end: number;
}

export interface Coverage {
  /** Every interval's length summed: what was sent. */
  sentBytes: number;
  /** Bytes in at least one interval. */
  distinctBytes: number;
  /** Bytes in two or more intervals: sent more than once. */
  repeatedBytes: number;
  /** sentBytes − distinctBytes: what sending each byte once would have saved (≥ repeatedBytes). */
  excessBytes: number;
}

/**
 * A sweep over the intervals' ends: each point's depth is how many intervals hold it. Half-open, so `[0, 5)` and
 * `[5, 9)` share no byte: at one position the ends are taken before the starts.
 */
export function coverage(intervals: readonly ByteInterval[]): Coverage {
  const edges: [position: number, step: 1 | -1][] = [];
  let sentBytes = 0;
  for (const { start, end } of intervals) {
    if (!(end > start)) continue;
    sentBytes += end - start;
    edges.push([start, 1], [end, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let depth = 0;
  let at = 0;
  let distinctBytes = 0;
  let repeatedBytes = 0;
  for (const [position, step] of edges) {
    if (depth >= 1) distinctBytes += position - at;
    if (depth >= 2) repeatedBytes += position - at;
    depth += step;
    at = position;
  }
  return { sentBytes, distinctBytes, repeatedBytes, excessBytes: sentBytes - distinctBytes };
}

/** The intervals as `a–b` ranges of inclusive byte positions, merged where they touch, for a log line. */
export function describeIntervals(intervals: readonly ByteInterval[]): string {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const merged: ByteInterval[] = [];
  for (const next of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && next.start <= last.end) last.end = Math.max(last.end, next.end);
    else merged.push({ ...next });
  }
  return merged.length === 0 ? 'none' : merged.map((i) => `${i.start}–${i.end - 1}`).join(', ');
}

/**
 * The bytes of its object a response carried: a `200` from byte 0, a `206` from its Content-Range's first position
 * (RFC 9110 §14.4), `bodyBytes` long (what was sent, a cut body included); none for any other answer or a range it
 * cannot read (a multipart one).
 */
export function servedInterval(
  status: number,
  contentRange: string | undefined,
  bodyBytes: number,
): ByteInterval | undefined {
  if (status === 200) return { start: 0, end: bodyBytes };
  const first = status === 206 ? /^bytes\s+(\d+)-\d+\/(?:\d+|\*)$/i.exec(contentRange?.trim() ?? '')?.[1] : undefined;
  return first === undefined ? undefined : { start: Number(first), end: Number(first) + bodyBytes };
}
