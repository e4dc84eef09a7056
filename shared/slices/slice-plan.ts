// Slice arithmetic: which fixed-size, size-aligned slices hold which bytes, where each is
// stored, and how a run of missing slices is asked for upstream. Pure: sizes in, plans out.

import type { ByteRange } from '../http/range.ts';

/** One version of one object: slices of two versions must never be mixed. */
export interface ObjectVersion {
  size: number;
  /**
   * The version's pin (version-pin.ts): the strong ETag, quotes included, exactly as the origin sent it; or, for an
   * object the origin sends without any ETag, `modified=<seconds>;length=<bytes>`, never sent as an ETag.
   */
  etag: string;
}

/** A run of consecutive slices, inclusive at both ends. */
export interface SliceSpan {
  first: number;
  last: number;
}

export function sliceCount(size: number, sliceSize: number): number {
  return Math.ceil(size / sliceSize);
}

/** The bytes slice `index` holds; the last slice may be short. */
export function sliceBytes(index: number, sliceSize: number, size: number): ByteRange {
  const start = index * sliceSize;
  return { start, end: Math.min(start + sliceSize, size) - 1 };
}

/** How many bytes slice `index` holds. */
export function sliceLength(index: number, sliceSize: number, size: number): number {
  const bytes = sliceBytes(index, sliceSize, size);
  return bytes.end - bytes.start + 1;
}

/** The slices a byte range touches. */
export function slicesFor(range: ByteRange, sliceSize: number): SliceSpan {
  return { first: Math.floor(range.start / sliceSize), last: Math.floor(range.end / sliceSize) };
}

/** The bytes a span of slices holds. */
export function spanBytes(span: SliceSpan, sliceSize: number, size: number): ByteRange {
  return { start: span.first * sliceSize, end: sliceBytes(span.last, sliceSize, size).end };
}

/**
 * Groups the slices `missing` (ascending) into runs of consecutive indices, each at most
 * `maxSlices` long: one upstream request per run.
 */
export function spansOf(missing: readonly number[], maxSlices: number): SliceSpan[] {
  const spans: SliceSpan[] = [];
  for (const index of missing) {
    const current = spans.at(-1);
    if (current !== undefined && index === current.last + 1 && current.last - current.first + 1 < maxSlices) {
      current.last = index;
    } else {
      spans.push({ first: index, last: index });
    }
  }
  return spans;
}

/** The host every slice entry's key is under: of no client URL (sliceKey). */
const SLICE_KEYS = 'https://slice.tiercache.internal/';

/**
 * Where a tier stores slice `index` of a version. A host of its own keeps slice entries out
 * of reach of any client URL, and the version and slice size in the path keep slices of two
 * versions (or two slicings) apart.
 */
export function sliceKey(objectKey: string, version: ObjectVersion, sliceSize: number, index: number): string {
  return `${versionPrefix(objectKey, version, sliceSize)}/${index}`;
}

/** Where the edge keeps a sliced version whole (worker/whole-copy.ts): beside its slices. */
export function wholeCopyKey(objectKey: string, version: ObjectVersion, sliceSize: number): string {
  return `${versionPrefix(objectKey, version, sliceSize)}/whole`;
}

/** Whether `key` is one sliceKey or wholeCopyKey made: an entry of a sliced version, not an object's own. */
export function isSliceKey(key: string): boolean {
  return key.startsWith(SLICE_KEYS);
}

/** The object key a sliceKey or wholeCopyKey was made from; undefined for any other key. */
export function slicedObjectKey(key: string): string | undefined {
  if (!isSliceKey(key)) return undefined;
  const encoded = key.slice(SLICE_KEYS.length).split('/', 1)[0] ?? '';
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

function versionPrefix(objectKey: string, version: ObjectVersion, sliceSize: number): string {
  return `${SLICE_KEYS}${encodeURIComponent(objectKey)}/${encodeURIComponent(version.etag)}/${version.size}/${sliceSize}`;
}

/** Whether an object of `size` bytes is handled as slices. */
export function isSliced(size: number, threshold: number): boolean {
  return size >= threshold && size > 0;
}
