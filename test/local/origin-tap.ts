// A recording proxy in front of an origin, so tests can assert on what the origin actually
// received. It forwards the request-target and every header byte unchanged (a SigV4 signature
// over Host still verifies behind it) and streams both bodies. It can also inject the faults a
// real server will not produce on demand (`faults`): a connection reset or a stall part-way
// through a body, a Content-Length longer than the body, a Content-Range off by some bytes, a
// busy answer with Retry-After; the bytes themselves still come from the origin behind it.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { closeServer, listen } from '../../local/server.ts';

/** What goes wrong with one origin answer. Byte counts are of the answer's body. */
export type OriginFault =
  /** The connection is reset (RST) once this many body bytes were sent. */
  | { kind: 'reset'; after: number }
  /** Nothing more is sent once this many body bytes were sent; the connection stays open. */
  | { kind: 'stall'; after: number }
  /** Content-Length announces `extra` more bytes than the body has; the connection closes after the body. */
  | { kind: 'long-length'; extra: number }
  /** Content-Range's first and last byte positions moved by `by` (the body is unchanged). */
  | { kind: 'shifted-range'; by: number }
  /** This status instead of the origin's answer (which is never asked). */
  | { kind: 'busy'; status: 429 | 503; retryAfter?: string }
  /** S3's 500 InternalError instead of the origin's answer (which is never asked). */
  | { kind: 'error' }
  /** Nothing at all for this long (no head, no byte), then the origin's answer: a first byte held back. */
  | { kind: 'hold'; ms: number }
  /** The body at no more than this rate (a slow origin: each slice takes time to arrive). */
  | { kind: 'throttle'; bytesPerSecond: number };

export interface RecordedRequest {
  method: string;
  /** The raw request-target, query included, exactly as received. */
  path: string;
  /** Lowercased names, values as received (repeated headers joined with ", "), `host` included. */
  headers: Record<string, string>;
  /** The origin's status once its response head arrived (502 if the origin could not be reached). */
  status?: number;
  /** When the answer began streaming to the tier, and when its connection was done with (ms epoch). */
  streaming?: { from: number; to?: number };
  /** When the tier closed the connection before the answer was all sent (ms epoch): it gave the request up. */
  gone?: number;
}

export interface Tap {
  /** Base URL to use instead of the origin's, `http://127.0.0.1:PORT`. */
  url: string;
  /** Every request so far, in arrival order. */
  requests: RecordedRequest[];
  clear(): void;
  /**
   * Runs `hook` on each request before it is forwarded (fault injection: replace the object
   * between two slice fetches, say); `undefined` removes it.
   */
  intercept(hook: ((request: RecordedRequest) => Promise<void> | void) | undefined): void;
  /** Decides, for each request, a fault to inject into its answer (or none); `undefined` removes it. */
  faults(decide: ((request: RecordedRequest) => OriginFault | undefined) | undefined): void;
  /** Answers still streaming (a stalled one stays until the client gives up): their count. */
  open(): number;
  /** Requests in progress now, from their arrival until their connection is done with (the origin's transfers). */
  inProgress(): number;
  /** The most requests in progress at once since the tap started or was last cleared. */
  busiest(): number;
  close(): Promise<void>;
}

/**
 * `clock`: the fake clock of the workers, which the origin's `Date` then follows too (a real
 * origin's clock agrees with the cache's; the fake one only moves the tiers' otherwise).
 */
export async function startTap(target: string, options: { clock?: () => number } = {}): Promise<Tap> {
  const origin = new URL(target);
  const requests: RecordedRequest[] = [];
  let hook: ((request: RecordedRequest) => Promise<void> | void) | undefined;
  let decide: ((request: RecordedRequest) => OriginFault | undefined) | undefined;
  let open = 0;
  let inProgress = 0;
  let busiest = 0;
  const server = createServer(async (incoming, outgoing) => {
    const record: RecordedRequest = {
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      headers: headerRecord(incoming),
    };
    requests.push(record);
    inProgress++;
    busiest = Math.max(busiest, inProgress);
    outgoing.once('close', () => {
      inProgress--;
      if (!outgoing.writableFinished) record.gone ??= Date.now();
    });
    if (hook !== undefined) {
      incoming.pause();
      await hook(record);
    }
    const fault = decide?.(record);
    if (fault?.kind === 'hold') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'error') {
      record.status = 500;
      incoming.resume();
      const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code></Error>';
      outgoing.writeHead(500, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
      outgoing.end(body);
      return;
    }
    if (fault?.kind === 'busy') {
      record.status = fault.status;
      incoming.resume();
      const body =
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';
      outgoing.writeHead(fault.status, {
        'content-type': 'application/xml',
        'content-length': Buffer.byteLength(body),
        ...(fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}),
      });
      outgoing.end(body);
      return;
    }
    // Raw header pairs: Node then sends exactly these, Host included, in the same order and case.
    const forward = httpRequest({
      host: origin.hostname,
      port: origin.port,
      method: record.method,
      path: record.path,
      headers: incoming.rawHeaders,
    });
    forward.once('response', (response) => {
      record.status = response.statusCode;
      const dated =
        options.clock === undefined
          ? response.rawHeaders
          : withDate(response.rawHeaders, new Date(options.clock()).toUTCString());
      const raw = fault === undefined || fault.kind === 'hold' ? dated : faultyHeaders(dated, fault);
      outgoing.writeHead(response.statusCode ?? 502, response.statusMessage, raw);
      // Out before any body byte, as a proxy passes a head on: a fault writes to the socket itself, and a head whose
      // body never comes (s3rver's for a range of an empty object: Content-Length 1, no byte) still arrives.
      outgoing.flushHeaders();
      open++;
      record.streaming = { from: Date.now() };
      outgoing.once('close', () => {
        open--;
        if (record.streaming) record.streaming.to = Date.now();
      });
      if (fault === undefined || fault.kind === 'hold')
        return void pipeline(response, outgoing).catch(() => outgoing.destroy());
      pipeline(response, faultyBody(fault, outgoing), outgoing).catch(() => outgoing.destroy());
    });
    forward.once('error', () => {
      if (record.status !== undefined || outgoing.headersSent) return void outgoing.destroy();
      record.status = 502;
      outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`tap: ${origin.host} unreachable\n`);
    });
    // pipe, not pipeline: a failed forward must leave the client's socket open for the 502.
    incoming.pipe(forward);
    incoming.once('close', () => incoming.complete || forward.destroy());
  });
  const url = await listen(server, 0);
  let closed: Promise<void> | undefined;
  return {
    url,
    requests,
    clear: () => {
      requests.splice(0);
      busiest = inProgress;
    },
    intercept: (next) => {
      hook = next;
    },
    faults: (next) => {
      decide = next;
    },
    open: () => open,
    inProgress: () => inProgress,
    busiest: () => busiest,
    close: () => (closed ??= closeServer(server)),
  };
}

function headerRecord(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
    const name = (incoming.rawHeaders[i] ?? '').toLowerCase();
    const value = incoming.rawHeaders[i + 1] ?? '';
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** The answer's raw headers as the fault has them. */
function faultyHeaders(raw: string[], fault: OriginFault): string[] {
  const out = [...raw];
  for (let i = 0; i + 1 < out.length; i += 2) {
    const name = (out[i] ?? '').toLowerCase();
    if (fault.kind === 'long-length' && name === 'content-length')
      out[i + 1] = String(Number(out[i + 1]) + fault.extra);
    if (fault.kind === 'shifted-range' && name === 'content-range') {
      out[i + 1] = (out[i + 1] ?? '').replace(
        /^bytes (\d+)-(\d+)/,
        (_, first: string, last: string) => `bytes ${Number(first) + fault.by}-${Number(last) + fault.by}`,
      );
    }
  }
  return out;
}

/** The body on its way to the client, going wrong as the fault says. */
function faultyBody(fault: OriginFault, outgoing: ServerResponse): Transform {
  let sent = 0;
  let stopped = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (fault.kind === 'throttle')
        return void setTimeout(() => done(null, chunk), (chunk.length / fault.bytesPerSecond) * 1000);
      if (stopped) return done();
      if ((fault.kind === 'reset' || fault.kind === 'stall') && sent + chunk.length >= fault.after) {
        const head = chunk.subarray(0, fault.after - sent);
        sent = fault.after;
        stopped = true;
        // Written straight to the socket, then the fault: a reset, or silence.
        outgoing.socket?.write(head, () => {
          if (fault.kind === 'reset') outgoing.socket?.resetAndDestroy();
        });
        return done();
      }
      sent += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      // A Content-Length promising more than came: the connection ends after the body.
      if (fault.kind === 'long-length') {
        outgoing.socket?.end();
        return;
      }
      if (!stopped) done();
    },
  });
}

/** Raw header pairs with Date replaced. */
function withDate(raw: string[], date: string): string[] {
  const out = [...raw];
  for (let i = 0; i + 1 < out.length; i += 2) if ((out[i] ?? '').toLowerCase() === 'date') out[i + 1] = date;
  return out;
}
