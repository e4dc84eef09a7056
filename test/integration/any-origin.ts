// An HTTP origin that answers whatever a test tells it, per path: any status (599 included),
// any headers, a body or none, interim 1xx answers first, or an answer computed from the
// request. It records what it received, so tests assert on both sides of the tiers.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
}

export interface Scripted {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
  /** Interim answers sent before the final one (RFC 9110 §15.2). */
  interim?: { status: number; headers?: Record<string, string> }[];
  /** No answer at all: the connection is reset (an origin that is down). */
  reset?: boolean;
  /** Answers only once this settles (an answer in flight while a test does something else). */
  after?: Promise<unknown>;
  /**
   * The body is sent chunked (no Content-Length, unless `headers` give one), and the connection
   * destroyed once this many of its bytes are out: an origin whose connection breaks in the middle
   * of a body.
   */
  cutAfter?: number;
  /**
   * The body is sent chunked (no Content-Length), all but its last byte at once and that byte only
   * once this settles: an answer under way, most of it in, while a test does something else.
   */
  lastByteAfter?: Promise<unknown>;
}

export type Script = Scripted | ((request: Received) => Scripted);

export interface AnyOrigin {
  url: string;
  received: Received[];
  /** Requests received for `path`. */
  receivedFor(path: string): Received[];
  answer(path: string, script: Script): void;
  close(): Promise<void>;
}

export async function startAnyOrigin(): Promise<AnyOrigin> {
  const scripts = new Map<string, Script>();
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const request: Received = { method: req.method ?? '', path, headers: flatten(req.headers) };
    received.push(request);
    const script = scripts.get(path.split('?')[0] ?? path);
    if (script === undefined)
      return reply(req, res, { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no script' });
    const scripted = typeof script === 'function' ? script(request) : script;
    if (scripted.after === undefined) reply(req, res, scripted);
    else void scripted.after.finally(() => reply(req, res, scripted));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    receivedFor: (path) => received.filter((r) => r.path === path),
    answer: (path, script) => scripts.set(path, script),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(req: IncomingMessage, res: ServerResponse, script: Scripted): void {
  if (script.reset === true) {
    req.socket.resetAndDestroy();
    return;
  }
  for (const interim of script.interim ?? []) {
    const headers = Object.entries(interim.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    // Node has no API for an arbitrary 1xx: written on the socket before the final head.
    res.socket?.write(`HTTP/1.1 ${interim.status} Interim\r\n${headers}\r\n`);
  }
  const body = script.body === undefined ? undefined : Buffer.from(script.body);
  const headers: Record<string, string | string[] | number> = { ...script.headers };
  if (script.cutAfter !== undefined) {
    // No length: node frames the body chunked. The part is written, then the connection goes.
    res.writeHead(script.status, headers);
    res.write(body?.subarray(0, script.cutAfter) ?? Buffer.alloc(0), () => req.socket.destroy());
    return;
  }
  if (script.lastByteAfter !== undefined && body !== undefined && body.length > 0) {
    res.writeHead(script.status, headers);
    res.write(body.subarray(0, body.length - 1));
    void script.lastByteAfter.finally(() => res.end(body.subarray(body.length - 1)));
    return;
  }
  const bodyless = req.method === 'HEAD' || script.status === 204 || script.status === 304;
  if (
    body !== undefined &&
    !Object.keys(headers).some(
      (name) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding',
    )
  )
    headers['content-length'] = body.length;
  res.writeHead(script.status, headers);
  res.end(bodyless ? undefined : body);
}

function flatten(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
