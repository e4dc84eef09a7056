// A folder token carried into what a playlist names (docs/private-content.md, "Signed playlists"): a player handed a
// signed playlist URL asks for its segments, keys and renditions by the URIs the playlist holds, which carry no token
// of their own. Each URI that resolves to a path inside the token's scope, on the playlist's own origin, gets the
// token's query parameters; every other byte stays as it was. Pure: text in, text out.

import { splitQuery } from '../admission/signed-token.ts';
import { dashUris, isDashManifest } from './dash-uris.ts';
import { hlsUris, isHlsPlaylist } from './hls-uris.ts';
import { type NamedUri, resolvedCandidates, withTokenQuery } from './named-uri.ts';

/**
 * The largest playlist rewritten, in bytes: a media playlist of a two-hour film in 2 s segments is about 200 KB, a
 * DASH manifest with a SegmentTimeline a few tens; a larger answer is sent as it is (a megabyte of text held and
 * rewritten per client is more than a hot path should pay for one request).
 */
export const MAX_REWRITTEN_BYTES = 1024 * 1024;

export type PlaylistFormat = 'hls' | 'dash';

/** What a playlist's URIs are judged by. */
export interface TokenCarry {
  /** The playlist's URL as the client asked for it: what its relative URIs resolve against (RFC 3986 §5.1.3). */
  playlistUrl: string;
  /** The token's query parameters (`tc_prefix=…&…&tc_sig=…`, no `?`), as the signer writes them. */
  token: string;
  /** Whether the token admits a request for `url` (on the playlist's origin): what the edge would let through. */
  grants(url: URL): boolean;
}

/** The playlist's format, read off its first bytes: EXTM3U first (HLS), or an MPD root (DASH); else undefined. */
export function playlistFormat(text: string): PlaylistFormat | undefined {
  if (isHlsPlaylist(text)) return 'hls';
  return isDashManifest(text) ? 'dash' : undefined;
}

/**
 * `text` with the token carried into each URI it names inside the token's scope; `text` itself when it is no
 * playlist or names none. A URI gets the token when every URL it may resolve to (each BaseURL alternative in DASH)
 * lies on the playlist's origin and is granted by the token; a URI to another host, outside the scope, or whose
 * resolution cannot be known is left as written, and so is one that carries a token of its own already (so a
 * second pass changes nothing).
 */
export function withPlaylistToken(text: string, carry: TokenCarry): string {
  const format = playlistFormat(text);
  if (format === undefined) return text;
  const { uris, representationIds } =
    format === 'hls' ? { uris: hlsUris(text), representationIds: [] } : dashUris(text);
  const origin = new URL(carry.playlistUrl).origin;
  const pieces: string[] = [];
  let at = 0;
  for (const named of uris) {
    if (!carries(named, carry, origin, representationIds)) continue;
    pieces.push(
      text.slice(at, named.start),
      withTokenQuery(text.slice(named.start, named.end), carry.token, named.xml),
    );
    at = named.end;
  }
  if (at === 0) return text;
  pieces.push(text.slice(at));
  return pieces.join('');
}

/** Whether `named` is to carry the token: resolved only inside the scope, on this origin, with no token of its own. */
function carries(named: NamedUri, carry: TokenCarry, origin: string, representationIds: readonly string[]): boolean {
  const candidates = resolvedCandidates(named, carry.playlistUrl, representationIds);
  if (candidates === undefined || candidates.length === 0) return false;
  // The token's own parameters in the reference's query: it was signed for already (a per-URI signature, or ours).
  const query = /\?([^#]*)/.exec(named.uri)?.[1];
  if (query !== undefined && splitQuery(query).ours.length > 0) return false;
  return candidates.every((url) => url.origin === origin && carry.grants(url));
}
