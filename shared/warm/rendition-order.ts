// The order a player reads a rendition's segments in, from its media playlist (what segment prefetching at the shield
// remembers: docs/warming.md "The next segments at the shield"). An HLS media playlist is one rendition (RFC 8216
// §4.3.2: its media segments in playlist order); a DASH manifest is one per Representation (dash-uris.ts). A master
// playlist names no segments: none. Pure: text in, URLs out.

import { dashUris, isoSeconds } from './dash-uris.ts';
import type { PlaylistKind } from './playlist-uris.ts';
import { UriList } from './uri-list.ts';

/**
 * A segment's duration where the playlist does not say it: Apple's HLS authoring specification recommends 6 s, the
 * length most VOD packagers use.
 */
export const DEFAULT_SEGMENT_MS = 6000;
/** The longest segment duration believed (RFC 8216 §4.3.3.1 puts no bound): longer is a typo, not a segment. */
const MAX_SEGMENT_MS = 60_000;

/** One rendition: its segments in the order a player reads them, and how long each lasts at most. */
export interface RenditionOrder {
  /** Absolute URLs (href, no fragment), each once, in playlist order. */
  segments: string[];
  /** HLS EXT-X-TARGETDURATION (§4.3.3.1), DASH @maxSegmentDuration; DEFAULT_SEGMENT_MS where it says none. */
  targetMs: number;
}

/**
 * The renditions `text` (a playlist of `kind` at `base`) orders: one for an HLS media playlist, one per Representation
 * of a static DASH manifest, none for a master playlist, a live MPD (its segments appear as time passes) or what is no
 * playlist. A playlist naming more than `limit` URIs names none here: too long to remember.
 */
export function renditionOrders(text: string, kind: PlaylistKind, base: URL, limit: number): RenditionOrder[] {
  const list = new UriList(base, limit);
  if (kind === 'dash') {
    if (dashUris(text, base, list) !== undefined || list.full) return [];
    const targetMs = bounded(secondsAttribute(text, 'maxSegmentDuration'));
    return list.groups().map((segments) => ({ segments, targetMs }));
  }
  const target = hlsSegments(text, list);
  if (target === undefined || list.full) return [];
  const { media } = list.uris();
  return media.length === 0 ? [] : [{ segments: media, targetMs: bounded(target) }];
}

/**
 * An HLS media playlist's segment URIs added to `list` in order (§4.3.2: each URI line; a byte-range playlist's one
 * file kept once), and its target duration in seconds (NaN when it states none); undefined when it is no media
 * playlist: not HLS (§4.3.1.1), or a master playlist (a variant stream's EXT-X-STREAM-INF, §4.3.4.2).
 */
function hlsSegments(text: string, list: UriList): number | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!/^#EXTM3U[ \t]*$/.test(lines[0] ?? '')) return undefined;
  let target = Number.NaN;
  for (const raw of lines.slice(1)) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) {
      list.add('media', line);
      if (list.full) return target;
      continue;
    }
    if (line.startsWith('#EXT-X-STREAM-INF')) return undefined;
    // §4.3.3.1: EXT-X-TARGETDURATION:<s>, a decimal-integer.
    const duration = /^#EXT-X-TARGETDURATION:\s*(\d{1,6})\s*$/.exec(line)?.[1];
    if (duration !== undefined) target = Number(duration);
  }
  return target;
}

/** An xs:duration attribute of the document's root (`maxSegmentDuration="PT4S"`), in seconds; NaN when absent. */
function secondsAttribute(text: string, name: string): number {
  const value = new RegExp(`<(?:\\w+:)?MPD\\b[^>]*\\s${name}="([^"]{1,40})"`).exec(text)?.[1];
  return isoSeconds(value) ?? Number.NaN;
}

/** Seconds as milliseconds, DEFAULT_SEGMENT_MS when not a positive duration, at most MAX_SEGMENT_MS. */
function bounded(seconds: number): number {
  if (!(seconds > 0)) return DEFAULT_SEGMENT_MS;
  return Math.min(MAX_SEGMENT_MS, Math.round(seconds * 1000));
}
