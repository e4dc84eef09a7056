// A recording proxy in front of an origin, so tests can assert on what the origin actually
// received. It forwards the request-target and every header byte unchanged (a SigV4 signature
// over Host still verifies behind it) and streams both bodies.
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { closeServer, listen } from './server.ts';

export interface RecordedRequest {
  method: string;
  /** The raw request-target, query included, exactly as received. */
  path: string;
  /** Lowercased names, values as received (repeated headers joined with ", "), `host` included. */
  headers: Record<string, string>;
  /** The origin's status once its response head arrived (502 if the origin could not be reached). */
  status?: number;
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
  const server = createServer(async (incoming, outgoing) => {
    const record: RecordedRequest = { method: incoming.method ?? 'GET', path: incoming.url ?? '/', headers: headerRecord(incoming) };
    requests.push(record);
    if (hook !== undefined) {
      incoming.pause();
      await hook(record);
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
      const raw = options.clock === undefined ? response.rawHeaders : withDate(response.rawHeaders, new Date(options.clock()).toUTCString());
      outgoing.writeHead(response.statusCode ?? 502, response.statusMessage, raw);
      pipeline(response, outgoing).catch(() => outgoing.destroy());
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
    clear: () => void requests.splice(0),
    intercept: (next) => void (hook = next),
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

/** Raw header pairs with Date replaced. */
function withDate(raw: string[], date: string): string[] {
  const out = [...raw];
  for (let i = 0; i + 1 < out.length; i += 2) if ((out[i] ?? '').toLowerCase() === 'date') out[i + 1] = date;
  return out;
}
