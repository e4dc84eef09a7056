// An origin whose answer never ends: every GET is a storable 200 sent chunked (no Content-Length), its bytes written as
// the reader takes them until the connection closes, as a live feed or a misbehaving application would. Loopback only.

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Written a block at a time, the same bytes over and over. */
const BLOCK_BYTES = 64 * 1024;
/** However long it is read, one answer ends here: a bound on a benchmark left running (4 GiB). */
const MOST_BYTES = 4 * 1024 ** 3;

export interface EndlessOrigin {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  close(): Promise<void>;
}

export async function startEndlessOrigin(): Promise<EndlessOrigin> {
  const block = Buffer.alloc(BLOCK_BYTES, 0x5a);
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=600' });
    if (req.method === 'HEAD') res.end();
    else void writeUntilClosed(res, block);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `block` again and again, each write once the last was taken, until the connection closes (or MOST_BYTES). */
async function writeUntilClosed(res: ServerResponse, block: Buffer): Promise<void> {
  let closed = false;
  const closing = new Promise<void>((resolve) => res.once('close', resolve)).then(() => (closed = true));
  for (let written = 0; !closed && written < MOST_BYTES; written += block.length) {
    if (!res.write(block) && !closed)
      await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closing]);
  }
  if (!closed) res.end();
}
