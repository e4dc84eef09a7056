// A URI a playlist names, where it is written, and what it resolves to: the one value the HLS and DASH readers
// (hls-uris.ts, dash-uris.ts) hand the rewrite (playlist-token.ts). Pure.

/** A URI named in a playlist's text: its span, the reference itself and what it is resolved against. */
export interface NamedUri {
  /** Where the URI is written: `text.slice(start, end)` is the reference as written (XML-escaped in DASH). */
  start: number;
  end: number;
  /** The URI reference, unescaped (what a player resolves). */
  uri: string;
  /**
   * The references it is resolved against in turn, outermost first, after the playlist's own URL: DASH's BaseURL of
   * each enclosing element (ISO/IEC 23009-1 §5.6.4), each level's alternatives (several BaseURL elements are
   * several hosts a player may pick from). None in HLS: RFC 8216 §4.1 resolves against the playlist's URL alone.
   */
  bases: readonly (readonly string[])[];
  /** A DASH SegmentTemplate attribute, whose `$…$` identifiers a player substitutes before resolving (§5.3.9.4.4). */
  template: boolean;
  /** Written inside XML (DASH): the token's `&` is written `&amp;` there (XML 1.0 §2.4). */
  xml: boolean;
}

/**
 * Resolving against more candidate bases than this (several BaseURL alternatives at several levels) is given up: the
 * URI is then left as it is, as one whose place is unknown.
 */
const MAX_CANDIDATES = 16;
/** ISO/IEC 23009-1 §5.3.9.4.4: `$$`, or an identifier with an optional `%0<width>d` format tag. */
const TEMPLATE_IDENTIFIER = /\$(RepresentationID|Number|Bandwidth|Time|SubNumber)?(%0\d+[dxX])?\$/g;

/**
 * Every URL `named` may resolve to (RFC 3986 §5.2, as a browser's URL parser does it: what the player asks for),
 * against the playlist's URL and each alternative of its bases; undefined when that cannot be known: a reference
 * that does not parse, too many alternatives, or a template whose identifiers could move it (`representationIds`:
 * the Representation ids of the document; one holding anything but letters, digits, `-`, `_` or `.` could be
 * `//other.host` or `../`).
 */
export function resolvedCandidates(
  named: NamedUri,
  playlistUrl: string,
  representationIds: readonly string[] = [],
): URL[] | undefined {
  let uri = named.uri;
  if (named.template) {
    const movable = (id: string): boolean => !/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(id) || /^\.+$/.test(id);
    if (uri.includes('$RepresentationID') && (representationIds.length === 0 || representationIds.some(movable)))
      return undefined;
    // Numbers (Number, Time, Bandwidth, SubNumber) and plain ids put only path characters in place.
    uri = uri.replace(TEMPLATE_IDENTIFIER, (whole, name: string | undefined) =>
      whole === '$$' ? '$' : name === 'RepresentationID' ? 'id' : '0',
    );
  }
  try {
    let candidates = [new URL(playlistUrl)];
    for (const level of named.bases) {
      candidates = level.flatMap((base) => candidates.map((from) => new URL(base, from)));
      if (candidates.length > MAX_CANDIDATES) return undefined;
    }
    return candidates.map((base) => new URL(uri, base));
  } catch {
    return undefined;
  }
}

/**
 * `uri` as written with the token's query parameters added (`token`: `tc_prefix=…&…&tc_sig=…`, no `?`), after its
 * query (RFC 3986 §3.4) and before its fragment (§3.5); in XML (`xml`), each `&` written `&amp;` (XML 1.0 §2.4). The
 * URI as written holds no character reference (dash-uris.ts leaves those alone), so its `?` and `#` are its own.
 */
export function withTokenQuery(uri: string, token: string, xml = false): string {
  const amp = xml ? '&amp;' : '&';
  const hash = uri.indexOf('#');
  const [head, fragment] = hash < 0 ? [uri, ''] : [uri.slice(0, hash), uri.slice(hash)];
  const joint = !head.includes('?') ? '?' : head.endsWith('?') || head.endsWith(amp) ? '' : amp;
  return `${head}${joint}${xml ? token.replaceAll('&', amp) : token}${fragment}`;
}
