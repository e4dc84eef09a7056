// bench:held-memory's origin: the same `no-store` body at every path, chunked (no Content-Length: a tier holds it
// until it has ended) or with its length (streamed). Every answer sends all but its last TAIL_BYTES at once and the
// rest only INTAKE_MS after every request expected has arrived (or GATE_MS after the first did), so every answer is
// under way, and all of it but the tail taken in by the tier, at the same time; a path outside GATED_PREFIX (a
// warm-up) is answered at once.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What each answer keeps back until every request has arrived. */
const TAIL_BYTES = 1024;
/** The longest the tails wait for requests still to come. */
const GATE_MS = 20_000;
/**
 * Once every request has arrived, the tails wait this long more: the tier reads what was sent of each (a few hundred
 * MB at memory speed), rather than find it in the socket's buffers once the tails have gone.
 */
const INTAKE_MS = 3_000;
/** The paths whose answers wait for the others. */
export const GATED_PREFIX = '/held-';

export type Framing = 'chunked' | 'length';

export interface HeldOrigin {
  url: string;
  /** Gated requests received when the tails went (so far, while they wait). */
  arrivedWhenOpened(): number;
  close(): Promise<void>;
}

/** Serves `body` at every path, framed as `framing`; the gated tails go once `expected` gated requests have arrived. */
export async function startHeldOrigin(body: Uint8Array, framing: Framing, expected: number): Promise<HeldOrigin> {
  let arrived = 0;
  let opened: number | undefined;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const open = (): void => {
    opened ??= arrived;
    setTimeout(release, INTAKE_MS);
  };
  let timer: NodeJS.Timeout | undefined;
  const head = Buffer.from(body.subarray(0, Math.max(0, body.length - TAIL_BYTES)));
  const tail = Buffer.from(body.subarray(head.length));
  const server = createServer((request, response) => {
    const gated = request.url?.startsWith(GATED_PREFIX) === true;
    if (gated && ++arrived >= expected) open();
    if (gated) timer ??= setTimeout(open, GATE_MS);
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' };
    if (framing === 'length') headers['content-length'] = String(body.length);
    response.writeHead(200, headers);
    if (request.method === 'HEAD') return void response.end();
    response.write(head);
    if (gated) void gate.then(() => response.end(tail));
    else response.end(tail);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivedWhenOpened: () => opened ?? arrived,
    close: async () => {
      clearTimeout(timer);
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
