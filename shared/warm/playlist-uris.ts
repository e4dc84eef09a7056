// What a playlist names: the further playlists (an HLS master's renditions) and the media (segments, initialization
// sections, keys), each URI resolved against the playlist's URL, once, in the order named. An extractor only: the
// playlist is read, never rewritten. HLS here (RFC 8216); DASH in dash-uris.ts.

import { hlsUris as hlsReferences, isHlsPlaylist } from '../playlists/hls-uris.ts';
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
 * An HLS playlist's URIs (RFC 8216 §4), as the one HLS reader finds them (shared/playlists/hls-uris.ts): a URI line
 * after EXT-X-STREAM-INF is a variant stream's playlist (§4.3.4.2), any other URI line a media segment (§4.3.2); the
 * URI attributes of the tags above. A byte-range playlist names one file many times (EXT-X-BYTERANGE, §4.3.2.2): it is
 * warmed once, whole.
 */
function hlsUris(text: string, list: UriList): PlaylistProblem | undefined {
  if (!isHlsPlaylist(text))
    return { error: 'the playlist is not HLS: its first line is not #EXTM3U (RFC 8216 §4.3.1.1)' };
  for (const { uri, tag, attributes } of hlsReferences(text)) {
    if (tag === undefined) list.add('media', uri);
    else if (tag === 'EXT-X-STREAM-INF' || PLAYLIST_TAGS.has(tag)) list.add('playlists', uri);
    else if (MEDIA_TAGS.has(tag) && !keyless(tag, attributes)) list.add('media', uri);
  }
  return undefined;
}

/** §4.3.2.4: a key of METHOD=NONE encrypts nothing ("the URI attribute MUST NOT be present"): nothing to read. */
function keyless(tag: string, attributes: string): boolean {
  return (tag === 'EXT-X-KEY' || tag === 'EXT-X-SESSION-KEY') && attribute(attributes, 'METHOD') === 'NONE';
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
