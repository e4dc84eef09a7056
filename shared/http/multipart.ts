// multipart/byteranges framing (RFC 9110 §14.6, RFC 2046 §5.1.1): the delimiter and header bytes
// around each part of a multi-range 206; the parts' own bytes come from a stream elsewhere.

import { type ByteRange, contentRange, rangeLength } from './range.ts';

/**
 * The framing of one multipart/byteranges body, planned up front so that Content-Length is known
 * before a byte of the body is read:
 *
 *   head[0]  = "--" boundary CRLF [Content-Type: …CRLF] Content-Range: …CRLF CRLF
 *   head[i]  = CRLF "--" boundary CRLF …                (the delimiter owns its leading CRLF)
 *   tail     = CRLF "--" boundary "--" CRLF
 */
export interface MultipartPlan {
  contentType: string; // 'multipart/byteranges; boundary=…'
  parts: { range: ByteRange; head: Uint8Array }[]; // head = delimiter line + part headers + blank line, precedes the part's bytes
  tail: Uint8Array; // CRLF + closing delimiter + CRLF
  contentLength: number; // Σ head + Σ range lengths + tail, exactly
}

/** How many random bytes boundaryFrom wants at least: 18 bytes are 144 bits, 24 characters. */
export const BOUNDARY_BYTES = 18;

const CRLF = '\r\n';
/** RFC 2046 §5.1.1: the longest boundary is 70 characters, which 52 bytes of base64url fill. */
const MAX_BOUNDARY_LENGTH = 70;
const MAX_BOUNDARY_SOURCE_BYTES = 52;
/** RFC 2046 §5.1.1: boundary := 0*69<bchars> bcharsnospace */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
/** token (RFC 9110 §5.6.2): a boundary that is one needs no quotes as a parameter value. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** field-value (RFC 9110 §5.5): no CR, LF or NUL, so a part header cannot be split in two. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The heads, tail, Content-Type and Content-Length of a multipart/byteranges body carrying
 * `ranges` of a `size`-byte representation, in the order given. Throws a RangeError for what
 * only a programming error could pass: no ranges, a range outside the representation, an
 * invalid boundary, or a part Content-Type that is not a field value.
 */
export function planMultipart(
  ranges: ByteRange[],
  size: number,
  partContentType: string | null,
  boundary: string,
): MultipartPlan {
  if (ranges.length === 0)
    throw new RangeError('expected at least one range for a multipart/byteranges body, got none');
  if (!BOUNDARY.test(boundary))
    throw new RangeError(
      `expected an RFC 2046 boundary (1-70 bchars, not ending in a space), got ${JSON.stringify(boundary)}`,
    );
  if (partContentType !== null && !FIELD_VALUE.test(partContentType)) {
    throw new RangeError(`expected a field value for the part Content-Type, got ${JSON.stringify(partContentType)}`);
  }
  const parts = ranges.map((range, index) => {
    if (!withinRepresentation(range, size)) {
      throw new RangeError(`expected a range within 0-${size - 1}, got ${range.start}-${range.end}`);
    }
    // RFC 2046 §5.1.1: "The CRLF preceding the boundary delimiter line is conceptually attached
    // to the boundary", so every head but the first opens with the CRLF that ends the part before.
    const lines = [`${index === 0 ? '' : CRLF}--${boundary}`];
    // RFC 9110 §15.3.7.2: "If the selected representation would have had a Content-Type header
    // field in a 200 (OK) response, the server SHOULD generate that same Content-Type header field
    // in the header area of each body part."
    if (partContentType !== null) lines.push(`Content-Type: ${partContentType}`);
    // RFC 9110 §15.3.7.2: "the server MUST generate a Content-Range header field corresponding to
    // the range being enclosed in that body part."
    lines.push(`Content-Range: ${contentRange(range, size)}`);
    return { range: { start: range.start, end: range.end }, head: latin1(lines.join(CRLF) + CRLF + CRLF) };
  });
  // RFC 2046 §5.1.1: close-delimiter := delimiter "--", delimiter := CRLF dash-boundary.
  const tail = latin1(`${CRLF}--${boundary}--${CRLF}`);
  const contentLength = parts.reduce((total, part) => total + part.head.length + rangeLength(part.range), tail.length);
  // A boundary with characters outside token (space, "(", ":", "?" ...) must be a quoted-string.
  const parameter = TOKEN.test(boundary) ? boundary : `"${boundary}"`;
  return { contentType: `multipart/byteranges; boundary=${parameter}`, parts, tail, contentLength };
}

/**
 * A boundary made from random bytes (pass `crypto.getRandomValues(new Uint8Array(BOUNDARY_BYTES))`):
 * their base64url spelling, whose alphabet is in both bchars (RFC 2046) and tchar (RFC 9110), cut
 * to 70 characters. Random enough that it cannot be expected to occur inside a part's bytes.
 */
export function boundaryFrom(bytes: Uint8Array): string {
  if (bytes.length < BOUNDARY_BYTES)
    throw new RangeError(`expected at least ${BOUNDARY_BYTES} random bytes for a boundary, got ${bytes.length}`);
  const base64 = btoa(String.fromCharCode(...bytes.subarray(0, MAX_BOUNDARY_SOURCE_BYTES)));
  return base64.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '').slice(0, MAX_BOUNDARY_LENGTH);
}

function withinRepresentation(range: ByteRange, size: number): boolean {
  return (
    Number.isSafeInteger(range.start) &&
    Number.isSafeInteger(range.end) &&
    range.start >= 0 &&
    range.start <= range.end &&
    range.end < size
  );
}

/** One byte per character: header text is ASCII or obs-text (RFC 9110 §5.5), never UTF-8 here. */
function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}
