// The benchmark's one origin for every cache under test: a small static file server over a temporary directory,
// answering as a plain web server does (RFC 9110).

import { createReadStream, rmSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize, sep } from 'node:path';
import { deterministicBytes } from '../../local/assets.ts';
import { singleRange } from '../sim/workload/byte-range.ts';

const MAX_AGE = 3600;

export interface BenchObject {
  /** URL path, `/name.bin`. */
  path: string;
  size: number;
  seed: number;
}

export interface SiteOrigin {
  url: string;
  /** Stops listening, closes connections and deletes the directory with every object. */
  close(): Promise<void>;
}

/** Writes `objects` (deterministic bytes) into a fresh temporary directory and serves it on a loopback port. */
export async function startSiteOrigin(objects: readonly BenchObject[]): Promise<SiteOrigin> {
  const directory = await mkdtemp(join(tmpdir(), 'tiercache-bench-site-'));
  try {
    for (const object of objects)
      await writeFile(join(directory, object.path.slice(1)), deterministicBytes(object.seed, object.size));
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const server = createServer((request, response) => void serve(directory, request, response));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const removeOnExit = () => rmSync(directory, { recursive: true, force: true });
  process.once('exit', removeOnExit);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      process.off('exit', removeOnExit);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Content-Length, a strong ETag (size and mtime), Last-Modified, Accept-Ranges, one byte range (§14.2), If-None-Match
 * (§13.1.2) and `Cache-Control: max-age=3600`. Peers cannot sign S3 requests, so everyone, tiercache included
 * (ORIGIN_KIND=http), reads the same objects through the same shaper from here.
 */
async function serve(directory: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return end(response, 405, { allow: 'GET, HEAD' });
  const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://origin').pathname);
  const file = normalize(join(directory, pathname));
  if (!file.startsWith(directory + sep)) return end(response, 404);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return end(response, 404);
  const size = info.size;
  const etag = `"${size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers: Record<string, string> = {
    etag,
    'last-modified': info.mtime.toUTCString(),
    'cache-control': `max-age=${MAX_AGE}`,
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
  };
  // RFC 9110 §13.1.2: a GET whose If-None-Match matches the current ETag is answered 304.
  if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
    return end(response, 304, headers);
  const range = singleRange(request.headers.range, size);
  if (range === 'unsatisfiable') return end(response, 416, { ...headers, 'content-range': `bytes */${size}` });
  const { start, end: last } = range ?? { start: 0, end: size - 1 };
  if (range) headers['content-range'] = `bytes ${start}-${last}/${size}`;
  response.writeHead(range ? 206 : 200, { ...headers, 'content-length': String(size === 0 ? 0 : last - start + 1) });
  if (request.method === 'HEAD' || size === 0) return void response.end();
  const stream = createReadStream(file, { start, end: last, highWaterMark: 256 * 1024 });
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}

function end(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-length': '0' });
  response.end();
}
