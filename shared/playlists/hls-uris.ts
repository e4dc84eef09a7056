// The URIs an HLS playlist names (RFC 8216 and its revision, draft-pantos-hls-rfc8216bis): each URI line of a media or
// master playlist, and the URI attribute of every tag that has one (EXT-X-KEY, EXT-X-SESSION-KEY, EXT-X-MAP,
// EXT-X-MEDIA, EXT-X-I-FRAME-STREAM-INF, EXT-X-SESSION-DATA, and Low-Latency HLS's EXT-X-PART, EXT-X-PRELOAD-HINT,
// EXT-X-RENDITION-REPORT). Pure: spans of the text; comments, other attributes and other tags are never named.

import type { NamedUri } from './named-uri.ts';

/**
 * A URI an HLS playlist names, and what names it: the tag whose URI attribute it is (its attribute list beside), or,
 * for a URI line, `EXT-X-STREAM-INF` when that tag came before it (a variant stream's playlist, §4.3.4.2) and nothing
 * for a media segment (§4.3.2). What the rewrite needs is the span alone; a reader of what a playlist names (the warm
 * API's) tells playlists from media by the tag.
 */
export interface HlsUri extends NamedUri {
  tag: string | undefined;
  attributes: string;
}

/** §4.3.4.2: "the URI line that follows the EXT-X-STREAM-INF tag" names the variant's playlist. */
const STREAM_INF = 'EXT-X-STREAM-INF';

/** RFC 8216 §4.3.1.1: "The EXTM3U tag indicates that the file is an Extended M3U Playlist file. It MUST be the first line". */
const EXTM3U = /^\uFEFF?#EXTM3U(?:[ \t]*)(?:\r?\n|$)/;
/** §4.2: AttributeName is `[A-Z0-9-]`; its value a quoted-string, or up to the next comma. */
const ATTRIBUTE_NAME = /^[A-Z0-9-]+$/;
/** EXT-X-DEFINE's variable references (rfc8216bis §4.3): the URI is only known once substituted. */
const VARIABLE_REFERENCE = '{$';

/** Whether `text` is an HLS playlist: its first line is EXTM3U (§4.3.1.1). */
export function isHlsPlaylist(text: string): boolean {
  return EXTM3U.test(text);
}

/**
 * The URIs the playlist names, in order. A line is a URI when it is neither blank nor starts with `#` (§4.1); a line
 * starting with `#EXT` is a tag, whose URI attribute (always a quoted-string, §4.2) is named; any other `#` line is a
 * comment and left alone. A URI holding a variable reference (`{$name}`) is not named: what it resolves to is known
 * only once the player substitutes it.
 */
export function hlsUris(text: string): HlsUri[] {
  const found: HlsUri[] = [];
  let variantNext = false;
  // A byte order mark before EXTM3U is no part of its line (§4: UTF-8 "MUST NOT contain a BOM", yet some carry one).
  let at = text.startsWith('\uFEFF') ? 1 : 0;
  while (at < text.length) {
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    // §4.1: "Each line is a URI, is blank, or starts with the character '#'"; lines end in LF or CR LF.
    const lineEnd = text[end - 1] === '\r' ? end - 1 : end;
    const line = text.slice(at, lineEnd);
    if (line.startsWith('#EXT')) {
      const colon = line.indexOf(':');
      const tag = line.slice(1, colon < 0 ? undefined : colon);
      if (tag === STREAM_INF) variantNext = true;
      const uri = uriAttribute(line);
      if (uri !== undefined) found.push(named(at + uri.start, uri.value, tag, line.slice(colon + 1)));
    } else if (!line.startsWith('#') && line.trim() !== '') {
      const lead = line.length - line.trimStart().length;
      found.push(named(at + lead, line.trim(), variantNext ? STREAM_INF : undefined, ''));
      variantNext = false;
    }
    at = end + 1;
  }
  return found.filter((uri) => !uri.uri.includes(VARIABLE_REFERENCE) && uri.uri !== '');
}

function named(start: number, uri: string, tag: string | undefined, attributes: string): HlsUri {
  return { start, end: start + uri.length, uri, bases: [], template: false, xml: false, tag, attributes };
}

/**
 * The URI attribute's value and where it starts in the tag line; undefined when the tag has none or its attribute
 * list does not parse (§4.2: `AttributeName=AttributeValue`, comma-separated; a quoted-string holds no `"`, CR or LF,
 * so a comma inside one is no separator). A tag whose list does not parse is left as it is.
 */
function uriAttribute(line: string): { start: number; value: string } | undefined {
  const colon = line.indexOf(':');
  if (colon < 0) return undefined;
  let at = colon + 1;
  while (at < line.length) {
    const eq = line.indexOf('=', at);
    if (eq < 0) return undefined;
    const name = line.slice(at, eq).trim();
    if (!ATTRIBUTE_NAME.test(name)) return undefined;
    let valueEnd: number;
    if (line[eq + 1] === '"') {
      const close = line.indexOf('"', eq + 2);
      if (close < 0) return undefined;
      if (name === 'URI') return { start: eq + 2, value: line.slice(eq + 2, close) };
      valueEnd = close + 1;
    } else {
      const comma = line.indexOf(',', eq + 1);
      valueEnd = comma < 0 ? line.length : comma;
    }
    const rest = line.slice(valueEnd).trimStart();
    if (rest === '') return undefined;
    if (!rest.startsWith(',')) return undefined;
    at = line.length - rest.length + 1;
  }
  return undefined;
}
