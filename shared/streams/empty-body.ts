// A body of no bytes: what a tier stores for an entry without content, and hands out for one the platform returns
// without a body.

/**
 * A stream that ends at once, holding no bytes (RFC 9110 §6.4.1: content of length 0, not the absence of content).
 * Made by the runtime from an empty buffer, so that an answer sending it keeps its `Content-Length: 0` (workerd frames
 * a stream made in JavaScript as chunked, whatever its headers say).
 */
export function emptyBody(): ReadableStream<Uint8Array> {
  return new Response(new Uint8Array(0)).body as ReadableStream<Uint8Array>;
}
