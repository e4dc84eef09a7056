// What a tier knows about one object without its bytes: size, version and the headers it is served
// with, kept for a sliced object in a manifest entry (an empty 200 at the object's own key).

import { isSliced, type ObjectVersion } from './slice-plan.ts';
import { discoveredPin, isVersionPin } from './version-pin.ts';

export interface ObjectMeta extends ObjectVersion {
  sliceSize: number;
  /** The object's representation and caching headers (no Content-Length, no Content-Range). */
  headers: Headers;
}

/**
 * Marks a manifest (and the shield's slice answers): `size=<bytes>; slice=<bytes>`. With the
 * manifest stored, a range request needs no upstream round trip.
 */
export const OBJECT_HEADER = 'x-tiercache-object';
/**
 * Beside the object marker: the version the slices are pinned to (version-pin.ts: the strong entity-tag, or for an
 * object without one its Last-Modified and length). One of the manifest's
 * own marks, never the representation's ETag field: a 304 may replace that with its weak form
 * (RFC 9111 §4.3.4), and a qualified no-cache may name it. Its own field, so that an edge of the
 * release before it, which reads only the marker, still reads the shield's answers as it did (and
 * a new edge those of an old shield: there, the ETag field is the pin).
 */
export const PIN_HEADER = 'x-tiercache-pin';
/** Marks a slice entry: `<index>`, the slice it holds, checked on every read. */
export const SLICE_HEADER = 'x-tiercache-slice';

/** Fields that belong to one message, not to the representation a manifest keeps and every part of it is sent with. */
const PER_MESSAGE = [
  'content-length',
  'content-range',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'age',
  'server-timing',
];
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

/** What the marks say: the object's size, its slice size and the version its slices are pinned to. */
export type ObjectMarks = Pick<ObjectMeta, 'size' | 'sliceSize' | 'etag'>;

/** The object marker for `meta`: `size=<bytes>; slice=<bytes>`. */
export function objectMarker(meta: Pick<ObjectMeta, 'size' | 'sliceSize'>): string {
  return `size=${meta.size}; slice=${meta.sliceSize}`;
}

/** A marker's size and slice size; undefined for anything else (`whole`, absent, garbled, slice 0). */
export function parseObjectMarker(value: string | null): { size: number; sliceSize: number } | undefined {
  const match = /^size=(\d{1,16}); slice=(\d{1,9})$/.exec(value ?? '');
  const sliceSize = Number(match?.[2]);
  return match && sliceSize > 0 ? { size: Number(match[1]), sliceSize } : undefined;
}

/** `headers` marked as the object `meta` describes: the marker and the pinned version. */
export function markObject(headers: Headers, meta: ObjectMarks): Headers {
  headers.set(OBJECT_HEADER, objectMarker(meta));
  headers.set(PIN_HEADER, meta.etag);
  return headers;
}

/**
 * What the marks on `headers` say; undefined unless both read: a marker and a version pin, a strong
 * entity-tag (RFC 9110 §8.8.1: a weak one does not promise the same bytes) or a Last-Modified pin
 * (version-pin.ts). The representation's
 * own ETag field is never the pin: a 304 may have replaced it with its weak form (RFC 9111
 * §4.3.4), or a qualified no-cache named it.
 */
export function readMarks(headers: Headers): ObjectMarks | undefined {
  const marker = parseObjectMarker(headers.get(OBJECT_HEADER));
  const etag = headers.get(PIN_HEADER);
  return marker !== undefined && isVersionPin(etag) ? { ...marker, etag } : undefined;
}

/** Whether stored headers claim to be a manifest, whether or not the claim reads (readManifest). */
export function isManifest(headers: Headers): boolean {
  return headers.has(OBJECT_HEADER);
}

/** The manifest's headers: the representation plus the marks. Its body is empty. */
export function manifestHeaders(meta: ObjectMeta): Headers {
  const headers = markObject(representationHeaders(meta.headers), meta);
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
  const marks = readMarks(headers);
  return marks === undefined ? undefined : { ...marks, headers: representationHeaders(headers) };
}

/**
 * The object an upstream 206 describes, when it can be sliced: a known size at or above the
 * threshold and a version to pin later slices to: a strong ETag or, without any ETag, a strong
 * Last-Modified with the size (version-pin.ts discoveredPin). Without one, slices of two versions
 * could not be told apart, so the object is served whole instead.
 */
export function slicedMeta(
  size: number,
  headers: Headers,
  sliceSize: number,
  threshold: number,
): ObjectMeta | undefined {
  const etag = discoveredPin(headers, size);
  if (!isSliced(size, threshold) || etag === null) return undefined;
  return { size, etag, sliceSize, headers: representationHeaders(headers) };
}

/** The slice marker of an entry holding every byte of a sliced version (the edge's whole copy). */
export const WHOLE_COPY = 'whole';

/** Headers for a stored slice (or the whole copy): just enough to check it is the one we asked for. */
export function sliceEntryHeaders(index: number | typeof WHOLE_COPY, length: number): Headers {
  return new Headers({
    'content-type': 'application/octet-stream',
    'content-length': String(length),
    [SLICE_HEADER]: String(index),
  });
}

/** Whether a stored entry holds slice `index` (or the whole copy) with `length` bytes. */
export function isSliceEntry(headers: Headers, index: number | typeof WHOLE_COPY, length: number): boolean {
  return headers.get(SLICE_HEADER) === String(index) && headers.get('content-length') === String(length);
}
