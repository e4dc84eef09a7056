// One connection through the local front (front.ts, which says what it does) and its own
// connection to the edge: the heads, bodies and refusals of the requests on it, in order.

import { connect, type Socket } from 'node:net';
import { ChunkedBody } from './chunked-body.ts';
import {
  type AcceptedHead,
  BARE_LINE_END,
  bareLineEnd,
  MAX_HEAD_BYTES,
  readHead,
  refusal,
  serverOptions,
  withContentLength,
} from './request-head.ts';

/**
 * How long a request head may take to arrive, from its first byte (or from the connection's
 * opening) to its last: past it the front answers 408 and closes (RFC 9110 §15.5.9), or closes
 * a connection that never sent a byte. Against heads trickled in to hold connections open;
 * nginx's client_header_timeout is 60 s and Node's headersTimeout 60 s, Cloudflare's front end
 * holds a handshake ~10 s: 20 s is generous to any real client.
 */
const FRONT_HEAD_TIMEOUT_MS = 20_000;
/**
 * The largest chunked request body read whole before forwarding: Cloudflare's 100 MB request body limit on Free and Pro
 * plans, then 413.
 */
const MAX_CHUNKED_BODY_BYTES = 100 * 1000 * 1000;

export interface RelayOptions {
  /** The edge's workerd socket: a TCP address, or a Unix socket's path. */
  upstream: { host: string; port: number } | { path: string };
  /** The field added to every request forwarded, which proves to the edge it came through the front. */
  token: { name: string; value: string };
  /** What `OPTIONS *` answers in Allow. */
  allow: string;
  /** FRONT_HEAD_TIMEOUT_MS, unless a test shortens it. */
  headTimeoutMs?: number;
}

/** Relays one client connection over a connection to the edge of its own; both join `sockets` while open. */
export function relay(client: Socket, options: RelayOptions, sockets: Set<Socket>): void {
  const upstream = connect({ ...options.upstream, noDelay: true });
  sockets.add(upstream);
  upstream.once('close', () => sockets.delete(upstream));
  const connection = new RelayedConnection(client, upstream, options);
  // Answers pass back as they are; the client's end is ours to decide (a refusal may follow).
  upstream.pipe(client, { end: false });
  upstream.once('end', () => connection.onUpstreamEnd());
  upstream.on('error', () => connection.destroy());
  client.on('error', () => connection.destroy());
  client.once('end', () => connection.onClientEnd());
  client.once('close', () => connection.onClientClose());
  client.on('data', (chunk: Buffer) => connection.receive(chunk));
}

/** Where the request being forwarded stands: its head to come, or its body (a chunked one read whole first). */
type Framing =
  | { kind: 'none' }
  | { kind: 'length'; length: number }
  | { kind: 'chunked'; head: string; body: ChunkedBody };
/** 'ok': go on with what is buffered; 'wait': nothing more to do until more bytes come. */
type Step = 'ok' | 'wait';

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
  /** Something was forwarded on this connection, so answers of the edge may be on their way. */
  private forwarded = false;
  /** Running while a head is awaited (FRONT_HEAD_TIMEOUT_MS). */
  private headTimer: NodeJS.Timeout | undefined;

  constructor(client: Socket, upstream: Socket, options: RelayOptions) {
    this.client = client;
    this.upstream = upstream;
    this.options = options;
    // The first head is awaited from the start: a connection that sends nothing is bounded too.
    this.awaitHead();
  }

  onUpstreamEnd(): void {
    this.upstreamEnded = true;
    if (this.finishing !== undefined) this.client.end(this.finishing);
    else this.client.end();
  }

  onClientEnd(): void {
    if (!this.upstreamEnded) this.upstream.end();
  }

  /**
   * The client is gone: so is its connection to the edge, as at Cloudflare's front, so that the edge hears it (its
   * answer's writes fail: a departed client is counted) rather than write into a socket nobody reads until it blocks.
   */
  onClientClose(): void {
    this.headArrived();
    this.upstream.destroy();
  }

  destroy(): void {
    this.headArrived();
    this.client.destroy();
    this.upstream.destroy();
  }

  receive(chunk: Buffer): void {
    if (this.stopped) return;
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (!this.stopped && this.step() === 'ok');
    // Bytes of a next head have come: it is awaited from now (an idle connection is the edge's to close).
    if (!this.stopped && this.framing.kind === 'none' && this.buffered.length > 0) this.awaitHead();
  }

  /** One step over what is buffered: a head, or a part of the body it announced. */
  private step(): Step {
    const framing = this.framing;
    if (framing.kind === 'none') return this.headStep();
    if (this.buffered.length === 0) return 'wait';
    return framing.kind === 'length' ? this.lengthStep(framing.length) : this.chunkedStep(framing.head, framing.body);
  }

  /** The next request head, forwarded re-written or refused. */
  private headStep(): Step {
    const end = this.buffered.indexOf('\r\n\r\n');
    // A bare LF is refused as soon as it comes: a head of LF line ends would never end here.
    if (bareLineEnd(this.buffered.subarray(0, end < 0 ? this.buffered.length : end + 4).toString('latin1')))
      return this.refuseWith(refusal(BARE_LINE_END.status, BARE_LINE_END.reason));
    if (end < 0) {
      if (this.buffered.length > MAX_HEAD_BYTES)
        return this.refuseWith(refusal(431, 'request header fields too large'));
      return 'wait';
    }
    const verdict = readHead(this.buffered.subarray(0, end + 4).toString('latin1'), this.options.token);
    this.buffered = this.buffered.subarray(end + 4);
    this.headArrived();
    // A 405 names what is allowed (RFC 9110 §15.5.6).
    if (verdict.ok === false)
      return this.refuseWith(
        refusal(
          verdict.status,
          verdict.reason,
          verdict.status === 405 ? { allow: this.options.allow } : verdict.headers,
        ),
      );
    // Answered here once the answers before it are out, then the connection is closed: that
    // keeps the order without reading the edge's answers.
    if (verdict.ok === 'options') return this.refuseWith(serverOptions(this.options.allow, true));
    this.closeAfter = verdict.close;
    if (verdict.body.kind === 'chunked') return this.holdChunked(verdict);
    this.send(verdict.head);
    this.framing = verdict.body;
    if (this.framing.kind === 'none') this.closeIfAsked();
    return 'ok';
  }

  /**
   * A chunked body is read whole before its head is forwarded (chunked-body.ts says why). A
   * client waiting for 100 Continue gets it from the front when nothing was forwarded before
   * (no answer of the edge can be on its way to interleave with it); later on a connection it
   * sends the body once it stops waiting (RFC 9110 §10.1.1).
   */
  private holdChunked(verdict: AcceptedHead): Step {
    if (verdict.expectsContinue && !this.forwarded) this.client.write('HTTP/1.1 100 Continue\r\n\r\n');
    this.framing = { kind: 'chunked', head: verdict.head, body: new ChunkedBody(MAX_CHUNKED_BODY_BYTES) };
    return 'ok';
  }

  /** Body bytes of a Content-Length, `left` of them still to come. */
  private lengthStep(left: number): Step {
    const take = Math.min(left, this.buffered.length);
    this.upstream.write(this.buffered.subarray(0, take));
    this.buffered = this.buffered.subarray(take);
    this.framing = left - take === 0 ? { kind: 'none' } : { kind: 'length', length: left - take };
    if (this.framing.kind === 'none') this.closeIfAsked();
    return 'ok';
  }

  /**
   * Bytes of a chunked body: once it is whole, its request is forwarded with a Content-Length; a malformed one is
   * refused.
   */
  private chunkedStep(head: string, body: ChunkedBody): Step {
    const verdict = body.push(this.buffered);
    this.buffered = Buffer.alloc(0);
    if (verdict.kind === 'more') return 'wait';
    if (verdict.kind === 'refused') return this.refuseWith(refusal(verdict.status, verdict.reason));
    this.send(withContentLength(head, verdict.body.length));
    this.upstream.write(verdict.body);
    this.buffered = verdict.rest;
    this.framing = { kind: 'none' };
    this.closeIfAsked();
    return 'ok';
  }

  private send(head: string): void {
    this.forwarded = true;
    this.upstream.write(Buffer.from(head, 'latin1'));
  }

  private awaitHead(): void {
    this.headTimer ??= setTimeout(() => this.headTimedOut(), this.options.headTimeoutMs ?? FRONT_HEAD_TIMEOUT_MS);
  }

  private headArrived(): void {
    clearTimeout(this.headTimer);
    this.headTimer = undefined;
  }

  /**
   * Past FRONT_HEAD_TIMEOUT_MS: 408 for a head begun, after the answers before it; a connection that never sent a byte
   * is closed.
   */
  private headTimedOut(): void {
    this.headTimer = undefined;
    if (this.stopped) return;
    if (this.buffered.length === 0 && !this.forwarded) {
      this.destroy();
      return;
    }
    this.refuseWith(refusal(408, 'the request head did not arrive in time'));
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
    this.headArrived();
    this.stopped = true;
    this.client.pause();
    this.finishing = answer;
    if (this.upstreamEnded) this.client.end(answer);
    else this.upstream.end();
    return 'wait';
  }
}
