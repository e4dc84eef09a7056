// A counting TCP proxy in front of an origin: every byte passed on as it is, and for each response of each connection
// the request it answers, its status and Content-Range, and the body bytes it actually sent before it ended or was cut.

import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { type FramingEvent, MessageFramer, type MessageHead } from './http-framing.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

/** One response the origin sent, as the proxy passed it on. */
export interface OriginResponse {
  method: string;
  /** The request-target's path, percent-decoded, without its query. */
  path: string;
  /** The query, `?` included, or empty. */
  query: string;
  /** The request's Range field, as sent. */
  range?: string;
  status: number;
  contentRange?: string;
  /** Body bytes passed on to the client before the response ended or its connection closed. */
  bodyBytes: number;
  /** The body ended as its framing said; false when the connection closed inside it. */
  complete: boolean;
  /** ms epoch: when the request's head had come (absent when no request was seen for it). */
  askedAt?: number;
  /** ms epoch; `endedAt` absent while it is still being sent. */
  startedAt: number;
  endedAt?: number;
}

export interface OriginLedger {
  /** `http://127.0.0.1:PORT`: use it where the origin's URL went. */
  url: string;
  /** Every response so far, in the order they began. */
  responses(): readonly OriginResponse[];
  /** Body bytes passed on so far, all responses. */
  bodyBytes(): number;
  /** Responses begun and not yet ended. */
  open(): number;
  close(): Promise<void>;
}

interface Asked {
  at?: number;
  method: string;
  target: string;
  range: string | undefined;
}

/** The proxy on a free loopback port in front of `target` (`http://127.0.0.1:PORT`, loopback only). */
export async function startOriginLedger(target: string): Promise<OriginLedger> {
  const upstreamAt = loopback(target);
  const responses: OriginResponse[] = [];
  const totals = { bodyBytes: 0 };
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    const upstream = connect({ ...upstreamAt, allowHalfOpen: true, noDelay: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    tally(client, upstream, (response) => responses.push(response), totals);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    responses: () => responses,
    bodyBytes: () => totals.bodyBytes,
    open: () => responses.filter((r) => r.endedAt === undefined).length,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** Both ways with backpressure; the requests framed on the way in, the responses on the way out. */
function tally(client: Socket, upstream: Socket, record: (r: OriginResponse) => void, totals: { bodyBytes: number }) {
  const requests = new MessageFramer('request');
  const answers = new MessageFramer('response');
  const asked: Asked[] = [];
  let current: OriginResponse | undefined;
  const onRequest = (events: FramingEvent[]) => {
    for (const event of events) {
      if (event.kind !== 'head') continue;
      const [method = '', requestTarget = ''] = event.head.startLine.split(' ');
      asked.push({ at: Date.now(), method, target: requestTarget, range: event.head.fields.get('range') });
      answers.expect(method);
    }
  };
  const onAnswer = (events: FramingEvent[]) => {
    for (const event of events) {
      if (event.kind === 'head') {
        const response = responseTo(asked, event.head);
        if (response === undefined) continue; // interim (1xx): the final answer follows
        current = response;
        record(response);
      } else if (event.kind === 'body' && current !== undefined) {
        current.bodyBytes += event.bytes;
        totals.bodyBytes += event.bytes;
      } else if (event.kind === 'end' && current !== undefined) {
        current.complete = event.complete;
        current.endedAt = Date.now();
        current = undefined;
      }
    }
  };
  let closed = false;
  const teardown = () => {
    if (closed) return;
    closed = true;
    onAnswer(answers.finish());
    if (current !== undefined) current.endedAt = Date.now();
    client.destroy();
    upstream.destroy();
  };
  client.on('error', teardown).on('close', teardown);
  upstream.on('error', teardown).on('close', teardown);
  client.on('data', (chunk: Buffer) => {
    onRequest(requests.push(chunk));
    if (!upstream.write(chunk)) client.pause();
  });
  upstream.on('drain', () => client.resume());
  client.on('end', () => upstream.end());
  upstream.on('data', (chunk: Buffer) => {
    // Only what is passed on counts as sent.
    if (client.destroyed) return;
    onAnswer(answers.push(chunk));
    if (!client.write(chunk)) upstream.pause();
  });
  client.on('drain', () => upstream.resume());
  upstream.on('end', () => client.end());
}

/** The record of a final response, paired with the oldest request not yet answered; undefined for an interim one. */
function responseTo(asked: Asked[], head: MessageHead): OriginResponse | undefined {
  const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(head.startLine)?.[1] ?? 0);
  if (status >= 100 && status < 200) return undefined;
  const request = asked.shift() ?? { method: '?', target: '', range: undefined };
  const query = request.target.indexOf('?');
  const rawPath = query < 0 ? request.target : request.target.slice(0, query);
  const contentRange = head.fields.get('content-range');
  return {
    method: request.method,
    path: safeDecode(rawPath),
    query: query < 0 ? '' : request.target.slice(query),
    ...(request.range !== undefined && { range: request.range }),
    status,
    ...(contentRange !== undefined && { contentRange }),
    bodyBytes: 0,
    complete: false,
    ...(request.at !== undefined && { askedAt: request.at }),
    startedAt: Date.now(),
  };
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function loopback(target: string): { host: string; port: number } {
  const url = new URL(target);
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || url.port === '')
    throw new Error(`expected an origin like http://127.0.0.1:PORT, got ${target}`);
  return { host: url.hostname, port: Number(url.port) };
}
