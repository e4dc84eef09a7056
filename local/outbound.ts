// Outbound fetches for a worker in Miniflare, sent to loopback addresses for host names that do not
// resolve (e.g. a virtual-hosted bucket `assets.s3.tiercache.test`).
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { fetch as miniflareFetch, type Request, Response } from 'miniflare';

/** Host name → `host:port` to connect to instead. */
export type ResolveMap = Record<string, string>;

/** Hop-by-hop: they describe the connection to the loopback server, not the message. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** A Miniflare `outboundService` function: mapped hosts go to their address, others are fetched normally. */
export function resolvingOutbound(resolve: ResolveMap): (request: Request) => Promise<Response> {
  return (request) => {
    const url = new URL(request.url);
    const address = resolve[url.hostname];
    // workerd follows redirects itself, one outbound request per hop.
    return address === undefined ? miniflareFetch(request, { redirect: 'manual' }) : forward(request, url, address);
  };
}

/**
 * `request` sent to `address` with its Host header and request-target unchanged, so a SigV4
 * signature computed over that Host still verifies at the server behind the loopback address.
 */
function forward(request: Request, url: URL, address: string): Promise<Response> {
  const separator = address.lastIndexOf(':');
  // Miniflare hands over the Host the worker's fetch sent; the URL's host is the fallback.
  const headers: OutgoingHttpHeaders = { host: url.host };
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return new Promise((resolve) => {
    const outgoing = httpRequest({
      host: address.slice(0, separator),
      port: Number(address.slice(separator + 1)),
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers,
    });
    outgoing.once('response', (incoming) => {
      const status = incoming.statusCode ?? 502;
      const responseHeaders: [string, string][] = [];
      for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
        const name = incoming.rawHeaders[i] ?? '';
        if (!HOP_BY_HOP.has(name.toLowerCase())) responseHeaders.push([name, incoming.rawHeaders[i + 1] ?? '']);
      }
      const empty = request.method === 'HEAD' || NULL_BODY_STATUSES.has(status);
      if (empty) incoming.resume();
      const body = empty ? null : Readable.toWeb(incoming);
      resolve(new Response(body, { status, statusText: incoming.statusMessage ?? '', headers: responseHeaders }));
    });
    // Miniflare can only answer a response here, never a network error: make it a plain 502
    // rather than a 500 carrying a Node stack trace.
    outgoing.once('error', (error) => {
      const message = `local stack: ${url.host} (resolved to ${address}) unreachable: ${error.message}\n`;
      resolve(new Response(message, { status: 502, headers: { 'content-type': 'text/plain' } }));
    });
    if (request.body === null) outgoing.end();
    else Readable.fromWeb(request.body as NodeReadableStream<Uint8Array>).pipe(outgoing);
  });
}
