// A tiny deterministic origin for the baselines' test: a few objects of fixed bytes, each with the fields the sim's
// catalogue origin gives (ETag, Last-Modified, Content-Length, `Cache-Control: public, max-age=86400`), one Range
// (206, or 416 past the end), HEAD; it counts the requests that reached it per path, and the ranges they asked.

import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { singleRange } from '../../bench/sim/workload/byte-range.ts';

export interface RangeOrigin {
  url: string;
  /** Requests that reached the origin, per path. */
  requests(path: string): number;
  /** The Range field of each request for `path` that reached the origin, in order (`-` for none). */
  ranges(path: string): string[];
  close(): Promise<void>;
}

const LAST_MODIFIED = new Date('2026-01-30T10:15:02Z').toUTCString();

/** `size` bytes that depend on `path` only: a SHA-256 counter stream, so any range of them can be checked. */
export function objectBytes(path: string, size: number): Buffer {
  const blocks: Buffer[] = [];
  for (let index = 0; index * 32 < size; index++) blocks.push(createHash('sha256').update(`${path}#${index}`).digest());
  return Buffer.concat(blocks).subarray(0, size);
}

export async function startRangeOrigin(objects: Readonly<Record<string, number>>): Promise<RangeOrigin> {
  const bodies = new Map(Object.entries(objects).map(([path, size]) => [path, objectBytes(path, size)]));
  const counts = new Map<string, number>();
  const ranges = new Map<string, string[]>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://origin').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    ranges.set(path, [...(ranges.get(path) ?? []), req.headers.range ?? '-']);
    const body = bodies.get(path);
    if (body === undefined) {
      res.writeHead(404, { 'content-length': 0 }).end();
      return;
    }
    const fields = {
      'content-type': 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`,
      'last-modified': LAST_MODIFIED,
      'cache-control': 'public, max-age=86400',
      'accept-ranges': 'bytes',
    };
    const range = singleRange(req.headers.range, body.length);
    if (range === 'unsatisfiable') {
      res.writeHead(416, { ...fields, 'content-range': `bytes */${body.length}`, 'content-length': 0 }).end();
      return;
    }
    const { start, end } = range ?? { start: 0, end: body.length - 1 };
    res.writeHead(range ? 206 : 200, {
      ...fields,
      'content-length': end - start + 1,
      ...(range ? { 'content-range': `bytes ${start}-${end}/${body.length}` } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: (path) => counts.get(path) ?? 0,
    ranges: (path) => ranges.get(path) ?? [],
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
