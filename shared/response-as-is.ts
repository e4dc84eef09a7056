// Every response a tier builds around bytes it stored or received is sent as those bytes. An
// object stored with a Content-Encoding (gzip from S3 metadata, br from a site) is already
// encoded: workerd, seeing that header, would compress it again ("automatic"), and a client
// would get gzip inside gzip. Content-Length and Content-Range then count the stored bytes,
// and ETags stay strong.

/** `new Response` with the body passed as it is (workerd's `encodeBody: "manual"`). */
export function responseAsIs(body: BodyInit | null, init: ResponseInit): Response {
  return new Response(body, { ...init, encodeBody: 'manual' } as ResponseInit);
}
