// What a playlist names: the further playlists (an HLS master's renditions) and the media (segments, initialization
// sections, keys), each URI resolved against the playlist's URL, once, in the order named. An extractor only: the
// playlist is read, never rewritten. HLS here (RFC 8216); DASH in dash-uris.ts.

import { dashUris } from './dash-uris.ts';
import { type PlaylistProblem, type PlaylistUris, UriList } from './uri-list.ts';

export type { PlaylistUris };

export type PlaylistKind = 'hls' | 'dash';

/** The kind of playlist a path names, by its extension (RFC 8216 §4: `.m3u8`; ISO/IEC 23009-1: `.mpd`). */
export function playlistKind(path: string): PlaylistKind | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.m3u8')) return 'hls';
  if (lower.endsWith('.mpd')) return 'dash';
  return undefined;
}

/**
 * The URIs `text` (a playlist of `kind` at `base`) names; a problem when it is not one, or when it names more than
 * `limit` URIs (a DASH template can name any number: the list is cut there, never built whole).
 */
export function playlistUris(
  text: string,
  kind: PlaylistKind,
  base: URL,
  limit: number,
): PlaylistUris | PlaylistProblem {
  const list = new UriList(base, limit);
  const problem = kind === 'hls' ? hlsUris(text, list) : dashUris(text, base, list);
  if (problem !== undefined) return problem;
  if (list.full) return { error: `the playlist names more than ${limit} URIs` };
  return list.uris();
}

/** Tags whose URI attribute names another playlist (RFC 8216 §4.3.4.1, §4.3.4.3). */
const PLAYLIST_TAGS: ReadonlySet<string> = new Set(['EXT-X-MEDIA', 'EXT-X-I-FRAME-STREAM-INF']);
/**
 * Tags whose URI attribute names media a player reads: a Media Initialization Section (§4.3.2.5), a key (§4.3.2.4,
 * §4.3.4.5; not with METHOD=NONE), a partial segment (draft-pantos-hls-rfc8216bis §4.4.4.9).
 */
const MEDIA_TAGS: ReadonlySet<string> = new Set(['EXT-X-MAP', 'EXT-X-KEY', 'EXT-X-SESSION-KEY', 'EXT-X-PART']);

/**
 * An HLS playlist's URIs (RFC 8216 §4): a URI line after EXT-X-STREAM-INF is a variant stream's playlist (§4.3.4.2),
 * any other URI line a media segment (§4.3.2); the URI attributes of the tags above. A byte-range playlist names one
 * file many times (EXT-X-BYTERANGE, §4.3.2.2): it is warmed once, whole.
 */
function hlsUris(text: string, list: UriList): PlaylistProblem | undefined {
  // §4.1: lines end with LF or CRLF; §4.3.1.1: the first line is EXTM3U. A BOM is forbidden (§4.1) but seen.
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!/^#EXTM3U[ \t]*$/.test(lines[0] ?? ''))
    return { error: 'the playlist is not HLS: its first line is not #EXTM3U (RFC 8216 §4.3.1.1)' };
  let variantNext = false;
  for (const raw of lines.slice(1)) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) {
      list.add(variantNext ? 'playlists' : 'media', line);
      variantNext = false;
      continue;
    }
    // §4.1: a line starting with `#EXT` is a tag; any other line starting with `#` is a comment.
    if (!line.startsWith('#EXT')) continue;
    const colon = line.indexOf(':');
    const tag = line.slice(1, colon < 0 ? undefined : colon);
    const attributes = colon < 0 ? '' : line.slice(colon + 1);
    if (tag === 'EXT-X-STREAM-INF') variantNext = true;
    else if (PLAYLIST_TAGS.has(tag) || MEDIA_TAGS.has(tag)) {
      const uri = attribute(attributes, 'URI');
      const keyless =
        (tag === 'EXT-X-KEY' || tag === 'EXT-X-SESSION-KEY') && attribute(attributes, 'METHOD') === 'NONE';
      if (uri !== undefined && uri !== '' && !keyless) list.add(PLAYLIST_TAGS.has(tag) ? 'playlists' : 'media', uri);
    }
  }
  return undefined;
}

/**
 * An attribute's value in an attribute list (§4.2: `NAME=value` pairs separated by commas; a quoted-string in double
 * quotes, which may hold commas, its quotes removed); undefined when it is not there.
 */
export function attribute(list: string, name: string): string | undefined {
  for (const match of list.matchAll(/([A-Z0-9-]+)=("[^"\r\n]*"|[^,]*)/g)) {
    if (match[1] !== name) continue;
    const value = match[2] ?? '';
    return value.startsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}
