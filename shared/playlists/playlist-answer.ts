// Which answers may be playlists to rewrite for a client's token, and the headers of a rewritten one: its bytes are
// that client's, so they are neither the stored copy's (RFC 9110 §8.8: no strong validator, no digest, no ranges of
// it) nor for a shared cache downstream to keep (RFC 9111 §5.2.2.7, private). Pure.

import { splitList } from '../http/header-list.ts';

/** What a playlist's name ends with: HLS (RFC 8216 §4: `.m3u8`, and `.m3u` for US-ASCII ones) and DASH (`.mpd`). */
const PLAYLIST_NAME = /\.(?:m3u8|m3u|mpd)$/i;
/** Their media types: RFC 8216 §4 (and the older spellings players still meet), ISO/IEC 23009-1 Annex C. */
const PLAYLIST_TYPES = new Set([
  'application/vnd.apple.mpegurl',
  'application/x-mpegurl',
  'audio/mpegurl',
  'audio/x-mpegurl',
  'application/dash+xml',
]);
/** The content codings decoded before a rewrite (the runtime's DecompressionStream reads them). */
export const DECODED_CODINGS: ReadonlySet<string> = new Set(['gzip', 'x-gzip', 'deflate']);
/** Fields that describe the stored bytes, not the rewritten ones (a digest of them, their ranges). */
const STORED_BYTES_FIELDS = ['content-md5', 'digest', 'content-digest', 'repr-digest', 'content-range'];
/** Directives that would let a shared cache keep one client's copy; `private` says none may (RFC 9111 §5.2.2.7). */
const SHARED_DIRECTIVES = new Set(['public', 'private', 's-maxage', 'proxy-revalidate']);

/**
 * Whether a request's path may name a playlist (`path` without its query). A playlist served under another name is
 * known by its Content-Type (isPlaylistType); either way its first bytes decide (playlist-token.ts playlistFormat).
 */
export function isPlaylistPath(path: string): boolean {
  return PLAYLIST_NAME.test(path);
}

/** Whether a Content-Type is a playlist's (parameters and case aside). */
export function isPlaylistType(contentType: string | null): boolean {
  if (contentType === null) return false;
  return PLAYLIST_TYPES.has((contentType.split(';')[0] ?? '').trim().toLowerCase());
}

/**
 * Why an answer cannot be rewritten as it is, or undefined when it can: a content coding the runtime cannot decode
 * (`encoding`: br and zstd playlists are sent as stored), and an origin's `no-transform` (RFC 9110 §7.7: "A proxy
 * MUST NOT transform the content of a response message that contains a no-transform cache directive").
 */
export function unrewritable(headers: Headers): 'encoding' | 'no-transform' | undefined {
  const codings = splitList(headers.get('content-encoding') ?? '').map((coding) => coding.toLowerCase());
  if (codings.filter((coding) => coding !== 'identity').some((coding, i) => i > 0 || !DECODED_CODINGS.has(coding)))
    return 'encoding';
  const cacheControl = splitList(headers.get('cache-control') ?? '').map((part) => part.toLowerCase());
  return cacheControl.includes('no-transform') ? 'no-transform' : undefined;
}

/**
 * The headers of an answer whose content was rewritten for one client (`length`: its bytes; undefined for a HEAD or
 * a 304, which send none). Content-Encoding goes (the content was decoded); the ETag becomes weak (§8.8.1: the bytes
 * differ from the stored copy's, but mean the same, so the client's If-None-Match still finds the stored copy and
 * earns a 304, §13.1.2's weak comparison); the fields that describe the stored bytes go, Accept-Ranges says `none`
 * (§14.3: a Range on such a playlist is answered whole); Cache-Control says `private` in place of what let shared
 * caches keep it, the browser's own freshness kept. Vary stays: the token is in the URL, which every cache keys by.
 */
export function rewrittenHeaders(stored: Headers, length: number | undefined): Headers {
  const headers = new Headers(stored);
  headers.delete('content-encoding');
  for (const name of STORED_BYTES_FIELDS) headers.delete(name);
  if (length === undefined) headers.delete('content-length');
  else headers.set('content-length', String(length));
  const etag = headers.get('etag');
  if (etag !== null && !etag.trim().startsWith('W/')) headers.set('etag', `W/${etag.trim()}`);
  if (headers.has('accept-ranges')) headers.set('accept-ranges', 'none');
  const kept = splitList(headers.get('cache-control') ?? '').filter(
    (directive) => !SHARED_DIRECTIVES.has((directive.split('=')[0] ?? '').trim().toLowerCase()),
  );
  headers.set('cache-control', ['private', ...kept].join(', '));
  return headers;
}
