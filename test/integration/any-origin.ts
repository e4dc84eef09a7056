// An HTTP origin that answers whatever a test tells it, per path: any status (599 included),
// any headers, a body or none, interim 1xx answers first, a long or endless body streamed at a
// bounded rate, or an answer computed from the request. It records what it received, and the
// body bytes it wrote for each request, so tests assert on both sides of the tiers.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { patternBytes } from './bytes.ts';

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Body bytes written for it so far (handed to its socket, which takes them only as its peer reads). */
  sent: number;
  /** Its answer is over: ended, or its connection closed. */
  done: boolean;
}

/**
 * A body written as its reader takes it, at most `bytesPerSec`: `bytes` long (Infinity: endless), `Range` ignored (a
 * 200 of every byte, as a plain static server answers). With its Content-Length when `declared`, else chunked. Its
 * bytes are `streamedBytes(seed, …)`.
 */
interface Streamed {
  bytes: number;
  bytesPerSec: number;
  declared: boolean;
  seed: number;
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
  /** A long or endless body, streamed (in place of `body`). */
  stream?: Streamed;
}

export type Script = Scripted | ((request: Received) => Scripted);

export interface AnyOrigin {
  url: string;
  received: Received[];
  /** Requests received for `path`. */
  receivedFor(path: string): Received[];
  /** Body bytes written so far, for every request received. */
  sentBytes(): number;
  answer(path: string, script: Script): void;
  close(): Promise<void>;
}

export async function startAnyOrigin(): Promise<AnyOrigin> {
  const scripts = new Map<string, Script>();
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const request: Received = { method: req.method ?? '', path, headers: flatten(req.headers), sent: 0, done: false };
    res.on('close', () => (request.done = true));
    received.push(request);
    const script = scripts.get(path.split('?')[0] ?? path);
    if (script === undefined)
      return reply(req, res, { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no script' }, request);
    const scripted = typeof script === 'function' ? script(request) : script;
    if (scripted.after === undefined) reply(req, res, scripted, request);
    else void scripted.after.finally(() => reply(req, res, scripted, request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    receivedFor: (path) => received.filter((r) => r.path === path),
    sentBytes: () => received.reduce((sum, r) => sum + r.sent, 0),
    answer: (path, script) => scripts.set(path, script),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(req: IncomingMessage, res: ServerResponse, script: Scripted, request: Received): void {
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
  if (script.stream !== undefined) {
    if (script.stream.declared) headers['content-length'] = script.stream.bytes;
    res.writeHead(script.status, headers);
    if (req.method === 'HEAD') res.end();
    else void streamBody(res, script.stream, request);
    return;
  }
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
  if (!bodyless) request.sent += body?.length ?? 0;
  res.end(bodyless ? undefined : body);
}

/** Bytes of a streamed body: a block of pattern bytes repeated, so any stretch of it is known. */
const BLOCK = 64 * 1024;
/** Written this often, the rate's share each time. */
const TICK_MS = 10;

/** The bytes `from` to `from + length` of a streamed body of seed `seed`. */
export function streamedBytes(seed: number, from: number, length: number): Uint8Array {
  const block = patternBytes(seed, BLOCK);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = block[(from + i) % BLOCK] ?? 0;
  return bytes;
}

/**
 * Writes `stream` into `res` as its reader takes it (a write waits for the socket to drain) and no faster than its
 * rate, until every byte is out or the connection closes; `request.sent` counts what was written.
 */
async function streamBody(res: ServerResponse, stream: Streamed, request: Received): Promise<void> {
  const block = Buffer.from(patternBytes(stream.seed, BLOCK));
  const perTick = Math.max(1, Math.floor((stream.bytesPerSec * TICK_MS) / 1000));
  let closed = false;
  const closing = new Promise<void>((resolve) => res.once('close', resolve)).then(() => (closed = true));
  const started = Date.now();
  while (!closed && request.sent < stream.bytes) {
    // Ahead of the rate: wait for it.
    const allowed = Math.floor(((Date.now() - started + TICK_MS) * stream.bytesPerSec) / 1000);
    if (request.sent >= allowed) {
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
      continue;
    }
    const at = request.sent % BLOCK;
    const length = Math.min(BLOCK - at, perTick, stream.bytes - request.sent);
    request.sent += length;
    const drained = res.write(block.subarray(at, at + length));
    if (!drained && !closed) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closing]);
  }
  if (!closed) res.end();
}

function flatten(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
