// Content-Type from a key's file extension, for objects uploaded without one (RFC 9110 §8.3: a
// recipient without a usable Content-Type "MAY ... examine the data"; we look at the name).

/** Extension (lower case, no dot) → media type. Text types carry their charset. */
export const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  // RFC 9239 §6: text/javascript for scripts and modules alike.
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  // RFC 8259 §11: "No 'charset' parameter is defined for this registration."
  json: 'application/json',
  map: 'application/json',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  // RFC 7303 §4.1 prefers application/xml to text/xml; XML declares its own encoding.
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  // RFC 8081 font/* types.
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  pdf: 'application/pdf',
  zip: 'application/zip',
  wasm: 'application/wasm',
  // HLS (RFC 8216 §4) playlists and MPEG-TS segments; DASH manifests and ISO BMFF segments.
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  mpd: 'application/dash+xml',
  m4s: 'video/iso.segment',
  // What a `.gz` compresses is unknown (and `app.js.gz` must not become JavaScript): opaque bytes.
  gz: 'application/octet-stream',
};

// S3 answers `binary/octet-stream` for an object uploaded without a type (some tools store
// `application/octet-stream`), which browsers download instead of render.
/** What S3 and upload tools store when nobody said: "no idea", not a statement about the bytes. */
const UNKNOWN_TYPES = ['binary/octet-stream', 'application/octet-stream'];

/**
 * The Content-Type to send for the object at `path` (a key or URL path) when the origin sent
 * `sent`: the origin's own type whenever it says something, else the extension's; `undefined`
 * = none known (then none is sent, as the origin sent none).
 */
export function contentTypeFor(path: string, sent: string | null): string | undefined {
  if (sent !== null && !UNKNOWN_TYPES.includes(essence(sent))) return sent;
  return typeForExtension(path) ?? sent ?? undefined;
}

/** The extension's type; `undefined` for a name without a known extension. */
export function typeForExtension(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  // `.htaccess`-style names (a leading dot only) have no extension.
  if (dot <= 0) return undefined;
  const extension = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(TYPES_BY_EXTENSION, extension) ? TYPES_BY_EXTENSION[extension] : undefined;
}

/** `headers` with Content-Type corrected for the object at `path` (changed in place). */
export function withTypeFromExtension(headers: Headers, path: string): Headers {
  const type = contentTypeFor(path, headers.get('content-type'));
  if (type !== undefined) headers.set('content-type', type);
  return headers;
}

/** RFC 9110 §8.3.1: the type/subtype without parameters, compared case-insensitively. */
function essence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}
