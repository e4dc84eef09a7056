// What a tier knows about one object without its bytes: size, version and the headers it is
// served with. Sliced objects keep this in a manifest entry (an empty 200 at the object's own
// key) so that a range request needs no upstream round trip; slices carry a marker naming the
// slice they hold, checked on every read. The version the slices are pinned to lives in the
// manifest's own marker, never only in the representation's ETag field: a 304 may replace that
// with its weak form (RFC 9111 §4.3.4), and a qualified private or no-cache may name it.

import { isStrongEtag } from '../http/etag.ts';
import { type ObjectVersion, isSliced } from './slice-plan.ts';

export interface ObjectMeta extends ObjectVersion {
  sliceSize: number;
  /** The object's representation and caching headers (no Content-Length, no Content-Range). */
  headers: Headers;
}

/** Marks a manifest (and the shield's slice answers): `size=<bytes>; slice=<bytes>; etag=<strong entity-tag>`. */
export const OBJECT_HEADER = 'x-tiercache-object';
/** Marks a slice entry: `<index>`. */
export const SLICE_HEADER = 'x-tiercache-slice';

/** Fields that belong to one message, not to the representation a manifest keeps and every part of it is sent with. */
const PER_MESSAGE = ['content-length', 'content-range', 'transfer-encoding', 'connection', 'keep-alive', 'age', 'server-timing'];
/** Our own fields (markers, the shield's span answer) are per message too: a client never sees one. */
const INTERNAL_PREFIX = 'x-tiercache-';

export function representationHeaders(headers: Headers): Headers {
  const kept = new Headers();
  for (const [name, value] of headers) {
    if (PER_MESSAGE.includes(name) || name.startsWith(INTERNAL_PREFIX)) continue;
    kept.append(name, value);
  }
  return kept;
}

/** What a marker says: the object's size, its slice size and the version its slices are pinned to. */
export type ObjectMarker = Pick<ObjectMeta, 'size' | 'sliceSize' | 'etag'>;

/** The object marker for `meta`. */
export function objectMarker(meta: ObjectMarker): string {
  return `size=${meta.size}; slice=${meta.sliceSize}; etag=${meta.etag}`;
}

/**
 * A marker's size, slice size and pinned version; undefined for anything else (`whole`,
 * absent, garbled, slice 0, a weak or missing entity-tag, a marker of before the version was
 * kept in it). An entity-tag holds no DQUOTE inside (RFC 9110 §8.8.3), so it ends the marker.
 */
export function parseObjectMarker(value: string | null): ObjectMarker | undefined {
  const match = /^size=(\d{1,16}); slice=(\d{1,9}); etag=("[\x21\x23-\x7e\x80-\xff]*")$/.exec(value ?? '');
  const sliceSize = Number(match?.[2]);
  const etag = match?.[3] ?? null;
  return match && sliceSize > 0 && isStrongEtag(etag) ? { size: Number(match[1]), sliceSize, etag } : undefined;
}

/** Whether stored headers claim to be a manifest, whether or not the claim reads (readManifest). */
export function isManifest(headers: Headers): boolean {
  return headers.has(OBJECT_HEADER);
}

/** The manifest's headers: the representation plus the marker. Its body is empty. */
export function manifestHeaders(meta: ObjectMeta): Headers {
  const headers = representationHeaders(meta.headers);
  headers.set(OBJECT_HEADER, objectMarker(meta));
  headers.set('content-length', '0');
  return headers;
}

/**
 * The object described by a stored manifest's headers, or undefined if they are not one (an
 * entry that isManifest but does not read is a miss: object-read.ts). The representation's
 * own ETag field is served as it stands (the weak form a 304 left, or none); the pin is the
 * marker's.
 */
export function readManifest(headers: Headers): ObjectMeta | undefined {
  const marker = parseObjectMarker(headers.get(OBJECT_HEADER));
  return marker === undefined ? undefined : { ...marker, headers: representationHeaders(headers) };
}

/**
 * The object an upstream 206 describes, when it can be sliced: a known size at or above the
 * threshold and a strong ETag to pin later slices to (without one, slices of two versions
 * could not be told apart, so the object is served whole instead).
 */
export function slicedMeta(size: number, headers: Headers, sliceSize: number, threshold: number): ObjectMeta | undefined {
  const etag = headers.get('etag');
  if (!isSliced(size, threshold) || !isStrongEtag(etag)) return undefined;
  return { size, etag, sliceSize, headers: representationHeaders(headers) };
}

/** The slice marker of an entry holding every byte of a sliced version (the edge's whole copy). */
export const WHOLE_COPY = 'whole';

/** Headers for a stored slice (or the whole copy): just enough to check it is the one we asked for. */
export function sliceEntryHeaders(index: number | typeof WHOLE_COPY, length: number): Headers {
  return new Headers({ 'content-type': 'application/octet-stream', 'content-length': String(length), [SLICE_HEADER]: String(index) });
}

/** Whether a stored entry holds slice `index` (or the whole copy) with `length` bytes. */
export function isSliceEntry(headers: Headers, index: number | typeof WHOLE_COPY, length: number): boolean {
  return headers.get(SLICE_HEADER) === String(index) && headers.get('content-length') === String(length);
}
