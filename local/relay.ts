// One connection through the local front (front.ts, which says what it does) and its own
// connection to the edge: the heads, bodies and refusals of the requests on it, in order.

import { type Socket, connect } from 'node:net';
import { MAX_HEAD_BYTES, type AcceptedHead, readHead, refusal, serverOptions } from './request-head.ts';

export interface RelayOptions {
  /** The edge's workerd socket. */
  upstream: { host: string; port: number };
  /** The field added to every request forwarded, which proves to the edge it came through the front. */
  token: { name: string; value: string };
  /** What `OPTIONS *` answers in Allow. */
  allow: string;
}

/** Relays one client connection over a connection to the edge of its own; both join `sockets` while open. */
export function relay(client: Socket, options: RelayOptions, sockets: Set<Socket>): void {
  const upstream = connect({ port: options.upstream.port, host: options.upstream.host, noDelay: true });
  sockets.add(upstream);
  upstream.once('close', () => sockets.delete(upstream));
  const connection = new RelayedConnection(client, upstream, options);
  // Answers pass back as they are; the client's end is ours to decide (a refusal may follow).
  upstream.pipe(client, { end: false });
  upstream.once('end', () => connection.onUpstreamEnd());
  upstream.on('error', () => connection.destroy());
  client.on('error', () => connection.destroy());
  client.once('end', () => connection.onClientEnd());
  client.on('data', (chunk: Buffer) => connection.receive(chunk));
}

/** Where the request being forwarded stands: its head to come, or which part of its body. */
type Framing = AcceptedHead['body'] | { kind: 'chunk-data'; left: number } | { kind: 'chunk-end' } | { kind: 'trailers' };
/** 'ok': go on with what is buffered; 'wait': nothing more to do until more bytes come; 'bad': the body cannot be read. */
type Step = 'ok' | 'wait' | 'bad';

/** What the client has sent and what of it has been forwarded. */
class RelayedConnection {
  private readonly client: Socket;
  private readonly upstream: Socket;
  private readonly options: RelayOptions;
  private upstreamEnded = false;
  /** A refusal waiting for the edge to give the answers before it. */
  private finishing: string | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private framing: Framing = { kind: 'none' };
  private stopped = false;
  /** The client asked to close after this request (RFC 9112 §9.6): once it is forwarded, no more is read. */
  private closeAfter = false;

  constructor(client: Socket, upstream: Socket, options: RelayOptions) {
    this.client = client;
    this.upstream = upstream;
    this.options = options;
  }

  onUpstreamEnd(): void {
    this.upstreamEnded = true;
    if (this.finishing !== undefined) this.client.end(this.finishing);
    else this.client.end();
  }

  onClientEnd(): void {
    if (!this.upstreamEnded) this.upstream.end();
  }

  destroy(): void {
    this.client.destroy();
    this.upstream.destroy();
  }

  receive(chunk: Buffer): void {
    if (this.stopped) return;
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      if (this.stopped) return;
      const step = this.step();
      if (step === 'wait') return;
      if (step === 'bad') return this.destroy();
    }
  }

  /** One step over what is buffered: a head, or a part of the body it announced. */
  private step(): Step {
    const framing = this.framing;
    if (framing.kind === 'none') return this.headStep();
    if (this.buffered.length === 0) return 'wait';
    switch (framing.kind) {
      case 'length': return this.lengthStep(framing.length);
      case 'chunked': return this.chunkSizeStep();
      case 'chunk-data': return this.chunkDataStep(framing.left);
      case 'chunk-end': return this.chunkEndStep();
      case 'trailers': return this.trailersStep();
    }
  }

  /** The next request head, forwarded re-written or refused. */
  private headStep(): Step {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.buffered.length > MAX_HEAD_BYTES) this.refuseWith(refusal(431, 'request header fields too large'));
      return 'wait';
    }
    const verdict = readHead(this.buffered.subarray(0, end + 4).toString('latin1'), this.options.token);
    this.buffered = this.buffered.subarray(end + 4);
    // A 405 names what is allowed (RFC 9110 §15.5.6).
    if (verdict.ok === false) return this.refuseWith(refusal(verdict.status, verdict.reason, verdict.status === 405 ? { allow: this.options.allow } : verdict.headers));
    // Answered here once the answers before it are out, then the connection is closed: that
    // keeps the order without reading the edge's answers.
    if (verdict.ok === 'options') return this.refuseWith(serverOptions(this.options.allow, true));
    this.upstream.write(Buffer.from(verdict.head, 'latin1'));
    this.framing = verdict.body;
    this.closeAfter = verdict.close;
    if (this.framing.kind === 'none') this.closeIfAsked();
    return 'ok';
  }

  /** Body bytes of a Content-Length, `left` of them still to come. */
  private lengthStep(left: number): Step {
    const taken = this.forward(left);
    this.framing = left - taken === 0 ? { kind: 'none' } : { kind: 'length', length: left - taken };
    if (this.framing.kind === 'none') this.closeIfAsked();
    return 'ok';
  }

  /** A chunk's size line; its extensions are not forwarded. */
  private chunkSizeStep(): Step {
    const line = this.buffered.indexOf('\r\n');
    if (line < 0) return this.buffered.length > 1024 ? 'bad' : 'wait';
    const size = /^([0-9A-Fa-f]{1,12})(?:;[^\r\n]*)?$/.exec(this.buffered.subarray(0, line).toString('latin1'));
    if (!size) return 'bad';
    this.buffered = this.buffered.subarray(line + 2);
    const length = parseInt(size[1] ?? '0', 16);
    if (length === 0) this.framing = { kind: 'trailers' };
    else {
      this.upstream.write(`${length.toString(16)}\r\n`);
      this.framing = { kind: 'chunk-data', left: length };
    }
    return 'ok';
  }

  /** A chunk's data, `left` bytes of it still to come. */
  private chunkDataStep(left: number): Step {
    const taken = this.forward(left);
    this.framing = left - taken === 0 ? { kind: 'chunk-end' } : { kind: 'chunk-data', left: left - taken };
    return 'ok';
  }

  /** The CRLF after a chunk's data. */
  private chunkEndStep(): Step {
    if (this.buffered.length < 2) return 'wait';
    if (this.buffered[0] !== 0x0d || this.buffered[1] !== 0x0a) return 'bad';
    this.buffered = this.buffered.subarray(2);
    this.upstream.write('\r\n');
    this.framing = { kind: 'chunked' };
    return 'ok';
  }

  /** A trailer line after the last chunk, or the empty line that ends the body. */
  private trailersStep(): Step {
    // Trailers are dropped: the edge uses none.
    const end = this.buffered.indexOf('\r\n');
    if (end < 0) return this.buffered.length > MAX_HEAD_BYTES ? 'bad' : 'wait';
    this.buffered = this.buffered.subarray(end + 2);
    if (end === 0) {
      this.upstream.write('0\r\n\r\n');
      this.framing = { kind: 'none' };
      this.closeIfAsked();
    }
    return 'ok';
  }

  /** Forwards up to `limit` buffered bytes as they are; answers how many. */
  private forward(limit: number): number {
    const take = Math.min(limit, this.buffered.length);
    this.upstream.write(this.buffered.subarray(0, take));
    this.buffered = this.buffered.subarray(take);
    return take;
  }

  private closeIfAsked(): void {
    if (!this.closeAfter || this.stopped) return;
    this.stopped = true;
    this.client.pause();
    // workerd keeps the connection open whatever the client asked: the front ends it once answered.
    this.upstream.end();
  }

  /** Refuses: nothing more is forwarded; the answer goes out once the edge has given those before it. */
  private refuseWith(answer: string): 'wait' {
    this.stopped = true;
    this.client.pause();
    this.finishing = answer;
    if (this.upstreamEnded) this.client.end(answer);
    else this.upstream.end();
    return 'wait';
  }
}
