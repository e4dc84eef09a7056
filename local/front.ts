// The local stack's front: what stands before a Worker in production (Cloudflare's edge parses
// every request before a Worker runs), here a TCP relay on the printed port in front of the
// edge's own workerd socket. Each request head is read by request-head.ts and forwarded
// re-written in one spelling, with a field that proves to the edge it came through here (the
// edge's socket refuses requests without it); bodies are forwarded by their framing (chunked
// ones re-written too). A refused request gets a short 4xx once the answers before it are out,
// and the connection is closed: nothing after it is read. Answers pass back byte for byte.

import { type Server, type Socket, connect, createServer } from 'node:net';
import { MAX_HEAD_BYTES, type AcceptedHead, readHead, refusal, serverOptions } from './request-head.ts';

/** The field the front adds to every request it forwards; the edge checks it (LOCAL_FRONT_TOKEN). */
export const FRONT_HEADER = 'x-tiercache-front';

export interface FrontOptions {
  /** The edge's workerd socket. */
  upstream: { host: string; port: number };
  /** The value of FRONT_HEADER. */
  token: string;
  /** What `OPTIONS *` answers in Allow. */
  allow: string;
  host: string;
  /** 0 = any free port. */
  port: number;
}

export interface Front {
  url: string;
  close(): Promise<void>;
}

export async function startFront(options: FrontOptions): Promise<Front> {
  const sockets = new Set<Socket>();
  // No Nagle on either side: a relay that holds back small writes adds a round of latency to each answer.
  const server: Server = createServer({ noDelay: true }, (client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    relay(client, options, sockets);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One client connection and its own connection to the edge. */
function relay(client: Socket, options: FrontOptions, sockets: Set<Socket>): void {
  const upstream = connect({ port: options.upstream.port, host: options.upstream.host, noDelay: true });
  sockets.add(upstream);
  upstream.once('close', () => sockets.delete(upstream));
  // Answers pass back as they are; the client's end is ours to decide (a refusal may follow).
  upstream.pipe(client, { end: false });
  let upstreamEnded = false;
  let finishing: string | undefined;
  upstream.once('end', () => {
    upstreamEnded = true;
    if (finishing !== undefined) client.end(finishing);
    else client.end();
  });
  const destroy = (): void => {
    client.destroy();
    upstream.destroy();
  };
  upstream.on('error', destroy);
  client.on('error', destroy);
  client.once('end', () => {
    if (!upstreamEnded) upstream.end();
  });

  let buffered: Buffer = Buffer.alloc(0);
  let framing: AcceptedHead['body'] | { kind: 'chunk-data'; left: number } | { kind: 'chunk-end' } | { kind: 'trailers' } = { kind: 'none' };
  let stopped = false;
  /** The client asked to close after this request (RFC 9112 §9.6): once it is forwarded, no more is read. */
  let closeAfter = false;
  const closeIfAsked = (): void => {
    if (!closeAfter || stopped) return;
    stopped = true;
    client.pause();
    // workerd keeps the connection open whatever the client asked: the front ends it once answered.
    upstream.end();
  };
  /** Refuses: nothing more is forwarded; the answer goes out once the edge has given those before it. */
  const refuseWith = (answer: string): void => {
    stopped = true;
    client.pause();
    finishing = answer;
    if (upstreamEnded) client.end(answer);
    else upstream.end();
  };

  client.on('data', (chunk: Buffer) => {
    if (stopped) return;
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (;;) {
      if (stopped) return;
      if (framing.kind === 'none') {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buffered.length > MAX_HEAD_BYTES) refuseWith(refusal(431, 'request header fields too large'));
          return;
        }
        const verdict = readHead(buffered.subarray(0, end + 4).toString('latin1'), { name: FRONT_HEADER, value: options.token });
        buffered = buffered.subarray(end + 4);
        // A 405 names what is allowed (RFC 9110 §15.5.6).
        if (verdict.ok === false) return refuseWith(refusal(verdict.status, verdict.reason, verdict.status === 405 ? { allow: options.allow } : verdict.headers));
        // Answered here once the answers before it are out, then the connection is closed: that
        // keeps the order without reading the edge's answers.
        if (verdict.ok === 'options') return refuseWith(serverOptions(options.allow, true));
        upstream.write(Buffer.from(verdict.head, 'latin1'));
        framing = verdict.body;
        closeAfter = verdict.close;
        if (framing.kind === 'none') closeIfAsked();
        continue;
      }
      if (buffered.length === 0) return;
      if (framing.kind === 'length') {
        const take = Math.min(framing.length, buffered.length);
        upstream.write(buffered.subarray(0, take));
        buffered = buffered.subarray(take);
        framing = framing.length - take === 0 ? { kind: 'none' } : { kind: 'length', length: framing.length - take };
        if (framing.kind === 'none') closeIfAsked();
        continue;
      }
      const progressed = chunkedStep();
      if (progressed === 'wait') return;
      if (progressed === 'bad') return destroy();
    }
  });

  /** One step of a chunked body: the size line, data, the CRLF after it, or the trailers. */
  function chunkedStep(): 'ok' | 'wait' | 'bad' {
    if (framing.kind === 'chunked') {
      const line = buffered.indexOf('\r\n');
      if (line < 0) return buffered.length > 1024 ? 'bad' : 'wait';
      const size = /^([0-9A-Fa-f]{1,12})(?:;[^\r\n]*)?$/.exec(buffered.subarray(0, line).toString('latin1'));
      if (!size) return 'bad';
      buffered = buffered.subarray(line + 2);
      const length = parseInt(size[1] ?? '0', 16);
      if (length === 0) framing = { kind: 'trailers' };
      else {
        upstream.write(`${length.toString(16)}\r\n`);
        framing = { kind: 'chunk-data', left: length };
      }
      return 'ok';
    }
    if (framing.kind === 'chunk-data') {
      const take = Math.min(framing.left, buffered.length);
      upstream.write(buffered.subarray(0, take));
      buffered = buffered.subarray(take);
      framing = framing.left - take === 0 ? { kind: 'chunk-end' } : { kind: 'chunk-data', left: framing.left - take };
      return 'ok';
    }
    if (framing.kind === 'chunk-end') {
      if (buffered.length < 2) return 'wait';
      if (buffered[0] !== 0x0d || buffered[1] !== 0x0a) return 'bad';
      buffered = buffered.subarray(2);
      upstream.write('\r\n');
      framing = { kind: 'chunked' };
      return 'ok';
    }
    // Trailers are dropped: the edge uses none.
    const end = buffered.indexOf('\r\n');
    if (end < 0) return buffered.length > MAX_HEAD_BYTES ? 'bad' : 'wait';
    buffered = buffered.subarray(end + 2);
    if (end === 0) {
      upstream.write('0\r\n\r\n');
      framing = { kind: 'none' };
      closeIfAsked();
    }
    return 'ok';
  }
}
