// Every response a tier builds around bytes it stored or received is sent as those bytes, never
// encoded again by the runtime.

/** RFC 9110 §15.3.5, §15.3.6, §15.4.5: answers that never have content (`new Response` refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * `new Response` with the body passed as it is (workerd's `encodeBody: "manual"`); none for a status
 * that has none. An object stored with a Content-Encoding (gzip from S3 metadata, br from a site) is
 * already encoded: workerd, seeing that header, would compress it again ("automatic"), and a client
 * would get gzip inside gzip. Content-Length and Content-Range then count the stored bytes, and
 * ETags stay strong.
 */
export function responseAsIs(body: BodyInit | null, init: ResponseInit): Response {
  if (body !== null && NULL_BODY.has(init.status ?? 200)) {
    if (body instanceof ReadableStream) void body.cancel().catch(() => undefined);
    return new Response(null, init);
  }
  return new Response(body, { ...init, encodeBody: 'manual' } as ResponseInit);
}
