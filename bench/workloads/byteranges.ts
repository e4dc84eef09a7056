// Reading a multipart/byteranges body (RFC 9110 §14.6, RFC 2046 §5.1.1) as a client does:
// the boundary from Content-Type, then each part's header fields and bytes.

export interface BodyPart {
  /** Lowercased names. */
  headers: Map<string, string>;
  body: Uint8Array;
}

const MAX_PARTS = 1000;

/** The boundary parameter of a `multipart/byteranges` Content-Type; `undefined` for any other type. */
export function byterangesBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^\s*multipart\/byteranges\s*;/i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** The parts of `body`, or a sentence saying what was expected and what was found instead. */
export function parseByteranges(body: Uint8Array, boundary: string): BodyPart[] | string {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const dashBoundary = `--${boundary}`;
  // RFC 2046 §5.1.1: a preamble may precede the first delimiter; every later one follows a CRLF.
  let at = bytes.indexOf(dashBoundary);
  if (at < 0) return `expected a delimiter line "${dashBoundary}", found none`;
  const parts: BodyPart[] = [];
  while (parts.length < MAX_PARTS) {
    const after = at + dashBoundary.length;
    if (bytes.toString('latin1', after, after + 2) === '--') return parts; // close-delimiter
    if (bytes.toString('latin1', after, after + 2) !== '\r\n')
      return `expected CRLF after delimiter ${parts.length + 1}, found ${JSON.stringify(bytes.toString('latin1', after, after + 2))}`;
    const headerEnd = bytes.indexOf('\r\n\r\n', after);
    if (headerEnd < 0) return `expected the header fields of part ${parts.length + 1} to end with an empty line`;
    const next = bytes.indexOf(`\r\n${dashBoundary}`, headerEnd + 4);
    if (next < 0) return `expected a delimiter after part ${parts.length + 1}, found the end of the body`;
    parts.push({
      headers: headerFields(bytes.toString('latin1', after + 2, headerEnd)),
      body: new Uint8Array(bytes.subarray(headerEnd + 4, next)),
    });
    at = next + 2;
  }
  return `expected at most ${MAX_PARTS} parts`;
}

/** `Name: value` lines (CRLF-separated) as a map with lowercased names. */
export function headerFields(block: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
}
