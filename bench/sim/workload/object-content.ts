// What each object of a trace holds: computed bytes (content.ts), or, for an HLS playlist, a real media playlist naming
// its rendition's segments, so that a system that reads playlists (tiercache's segment prefetching) meets one. A
// playlist is `<folder>/<name>.m3u8` beside `<folder>/0.ts`, `1.ts`, … in the catalogue (catalogue.ts names them so),
// its text padded with a comment (RFC 8216 §4.1: a line starting `#` that is not a tag) to the size the catalogue
// gives it; one that would not fit keeps computed bytes. Pure: the origin serves these bytes and the replay client
// checks them.

import { type ContentId, contentBytes, contentSeed } from './content.ts';
import type { TraceObject } from './trace.ts';

/** One object's bytes at one version: any range of them, and the check of a chunk read at an offset. */
export interface ObjectContent {
  bytes(start: number, length: number): Uint8Array;
  matches(start: number, chunk: Uint8Array): boolean;
}

/** Every object's content, by its identity and size. */
export interface ContentBook {
  of(id: ContentId, size: number): ObjectContent;
  /** The segments the book's playlists name (paths), for the report's segment tables. */
  readonly segments: ReadonlySet<string>;
}

/** Computed bytes for every object: a trace with no playlist, or a run that reads none. */
export const COMPUTED_CONTENT: ContentBook = { of: computed, segments: new Set() };

/**
 * The trace's playlists, each naming its segments with `segmentSeconds` as each one's duration: the duration the
 * replay plays them at (a trace's 4 s segments at 4× are a second apart), so that a player's pace reads as it is.
 */
export function contentBook(objects: readonly TraceObject[], segmentSeconds: number): ContentBook {
  const namesOf = renditionSegments(objects);
  const sizes = new Map(objects.map((object) => [object.path, object.size]));
  const segments = new Set(
    [...namesOf].flatMap(([path, names]) => names.map((name) => `${path.slice(0, path.lastIndexOf('/') + 1)}${name}`)),
  );
  return {
    segments,
    of(id, size) {
      const names = namesOf.get(id.path);
      if (names === undefined || sizes.get(id.path) !== size) return computed(id, size);
      const text = playlistText(id, names, segmentSeconds, size);
      return text === undefined ? computed(id, size) : fixed(text);
    },
  };
}

/** The media playlist of `names` (folder-relative), padded to exactly `size` bytes; undefined when it cannot fit. */
function playlistText(
  id: ContentId,
  names: readonly string[],
  segmentSeconds: number,
  size: number,
): Uint8Array | undefined {
  const duration = segmentSeconds.toFixed(3);
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    // §4.3.3.1: the target duration is a whole number of seconds, at least every segment's (rounded).
    `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(segmentSeconds))}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
  ];
  for (const name of names) lines.push(`#EXTINF:${duration},`, name);
  lines.push('#EXT-X-ENDLIST', `# version ${id.version}`);
  const text = `${lines.join('\n')}\n`;
  const padding = size - text.length - 1;
  if (padding < 2) return undefined;
  return new TextEncoder().encode(`${text}#${' '.repeat(padding - 1)}\n`);
}

/** Each playlist's segments, in order, by its path: `N.ts` of its folder from 0 while the catalogue has them. */
function renditionSegments(objects: readonly TraceObject[]): Map<string, string[]> {
  const paths = new Set(objects.map((object) => object.path));
  const found = new Map<string, string[]>();
  for (const { path } of objects) {
    if (!path.endsWith('.m3u8')) continue;
    const folder = path.slice(0, path.lastIndexOf('/') + 1);
    const names: string[] = [];
    while (paths.has(`${folder}${names.length}.ts`)) names.push(`${names.length}.ts`);
    if (names.length > 0) found.set(path, names);
  }
  return found;
}

function computed(id: ContentId, _size: number): ObjectContent {
  const seed = contentSeed(id);
  return {
    bytes: (start, length) => contentBytes(seed, start, length),
    matches: (start, chunk) => same(chunk, contentBytes(seed, start, chunk.length)),
  };
}

function fixed(text: Uint8Array): ObjectContent {
  return {
    bytes: (start, length) => text.subarray(start, start + length),
    matches: (start, chunk) => same(chunk, text.subarray(start, start + chunk.length)),
  };
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
