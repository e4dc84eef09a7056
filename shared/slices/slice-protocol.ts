// How the edge asks the shield for slices. Each request names its span, the version it is
// pinned to and the slicing in the path, and every answer is a complete 200 of exactly those
// bytes: a cache in front of the shield (Cloudflare's Workers Cache stores only full 200s)
// can keep each span as it is, and no client URL can ever name one (the shield answers only
// the edge).

import type { SliceSpan } from './slice-plan.ts';

const PREFIX = '/__tiercache/slices/';
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
}

/** The path (and query) the edge requests for `request` of the object at `objectPath`. */
export function sliceRequestPath(request: SliceRequest, objectPath: string): string {
  const etag = request.etag === undefined ? '-' : encodeURIComponent(request.etag);
  // In the path, not a header: a cache in front of the shield keys by URL, and must never take
  // the rest of a span for all of it.
  const from = request.from ? `+${request.from}` : '';
  return `${PREFIX}${request.span.first}-${request.span.last}${from}/${request.sliceSize}/${etag}${objectPath}`;
}

/** The slice request a path carries and the object path after it; undefined for a plain object path. */
export function parseSliceRequestPath(path: string): { request: SliceRequest; objectPath: string } | undefined {
  if (!path.startsWith(PREFIX)) return undefined;
  const match = /^(\d{1,9})-(\d{1,9})(?:\+(\d{1,15}))?\/(\d{1,9})\/([^/]+)(\/.*)$/.exec(path.slice(PREFIX.length));
  if (!match) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2]);
  const from = Number(match[3] ?? 0);
  if (last < first) return undefined;
  let etag: string | undefined;
  try {
    etag = match[5] === '-' ? undefined : decodeURIComponent(match[5] ?? '');
  } catch {
    return undefined;
  }
  if (from > 0 && etag === undefined) return undefined;
  return { request: { span: { first, last }, sliceSize: Number(match[4]), etag, ...(from > 0 ? { from } : {}) }, objectPath: match[6] ?? '/' };
}
