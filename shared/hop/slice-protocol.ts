// How the edge asks the shield for slices: span, pinned version and slicing in the path, every answer a complete 200
// of exactly those bytes, so a cache before the shield (Workers Cache keeps only full 200s) can keep each span.

import { SLICES_PREFIX } from '../request/reserved-paths.ts';
import type { SliceSpan } from '../slices/slice-plan.ts';

/** After the span (and offset): the edge asks the shield to store it, not to send it (SliceRequest.warm). */
const WARM_MARK = '~';
/** On a slice answer: the span it holds, `<first>-<last>`. */
export const SPAN_HEADER = 'x-tiercache-span';
/** On a slice answer for an object that is not sliced: the whole object follows. */
export const WHOLE = 'whole';

export interface SliceRequest {
  span: SliceSpan;
  sliceSize: number;
  /** The ETag the edge expects, or undefined for discovery. */
  etag: string | undefined;
  /** Only the span's bytes from this offset on (the rest of a body that broke); 0 = all of them. Needs `etag`. */
  from?: number;
  /**
   * Store the span at the shield and answer without its bytes (204, once stored): the edge
   * reading ahead, each slice one shield invocation of its own, fetches it when its reader gets
   * there. Needs `etag`; never with `from`.
   */
  warm?: boolean;
}

/**
 * The path (and query) the edge requests for `request` of the object at `objectPath`; no client URL
 * ever names one, since the shield answers only the edge.
 */
export function sliceRequestPath(request: SliceRequest, objectPath: string): string {
  const etag = request.etag === undefined ? '-' : encodeURIComponent(request.etag);
  // In the path, not a header: a cache in front of the shield keys by URL, and must never take
  // the rest of a span for all of it.
  const from = request.from ? `+${request.from}` : '';
  const warm = request.warm === true ? WARM_MARK : '';
  return `${SLICES_PREFIX}${request.span.first}-${request.span.last}${from}${warm}/${request.sliceSize}/${etag}${objectPath}`;
}

/** The slice request a path carries and the object path after it; undefined for a plain object path. */
export function parseSliceRequestPath(path: string): { request: SliceRequest; objectPath: string } | undefined {
  if (!path.startsWith(SLICES_PREFIX)) return undefined;
  const match = /^(\d{1,9})-(\d{1,9})(?:\+(\d{1,15}))?(~)?\/(\d{1,9})\/([^/]+)(\/.*)$/.exec(
    path.slice(SLICES_PREFIX.length),
  );
  if (!match) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2]);
  const from = Number(match[3] ?? 0);
  const warm = match[4] === WARM_MARK;
  if (last < first) return undefined;
  let etag: string | undefined;
  try {
    etag = match[6] === '-' ? undefined : decodeURIComponent(match[6] ?? '');
  } catch {
    return undefined;
  }
  if ((from > 0 || warm) && etag === undefined) return undefined;
  if (warm && from > 0) return undefined;
  return {
    request: {
      span: { first, last },
      sliceSize: Number(match[5]),
      etag,
      ...(from > 0 ? { from } : {}),
      ...(warm ? { warm } : {}),
    },
    objectPath: match[7] ?? '/',
  };
}

/**
 * A warm answer's body, once the shield has stored the span (or could not): `stored <bytes>`
 * with the bytes it fetched from the origin for it (0: it held them all), or `failed`; before
 * it, a `.` for each beat the shield made while it was at it (shield/slice-warm.ts).
 */
export function warmWord(fetched: number | undefined): string {
  return fetched === undefined ? 'failed' : `stored ${fetched}`;
}

/**
 * What a warm answer's body says: the bytes the shield fetched from the origin, or undefined when
 * the span is not stored there.
 */
export function parseWarmWord(word: string): number | undefined {
  const match = /^\.*stored (\d{1,15})$/.exec(word);
  return match === null ? undefined : Number(match[1]);
}
