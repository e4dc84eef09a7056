// The sim's origin: a plain HTTP server over the trace's catalogue, each object's bytes computed from its path and
// version (workload/content.ts), answering as a static web server does (RFC 9110): Content-Length, a strong ETag
// naming the version, Last-Modified, `Cache-Control: public, max-age=86400`, one byte range (206, or 416), HEAD and
// If-None-Match. It counts what it sent, per path: the report's origin requests and origin bytes are its counts, so
// no system's own word is taken for what it cost the origin. A purge in the trace bumps a path's version first.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { singleRange } from './workload/byte-range.ts';
import { contentEtag } from './workload/content.ts';
import { COMPUTED_CONTENT, type ContentBook, type ObjectContent } from './workload/object-content.ts';
import type { TraceObject } from './workload/trace.ts';

const MAX_AGE_SECONDS = 86_400;
const CHUNK_BYTES = 256 * 1024;
/** Last-Modified of version 0; each version a minute later (RFC 9110 §8.8.2 needs only that it moves forward). */
const FIRST_MODIFIED_MS = Date.UTC(2026, 0, 1);

/** One answer with a body: which bytes of which version it sent (`sentBytes` fewer than asked when cut). */
export interface OriginAnswer {
  path: string;
  version: number;
  status: number;
  /** First byte of the object it started at. */
  start: number;
  sentBytes: number;
}

interface OriginCounts {
  requests: number;
  bytes: number;
}

export interface CatalogueOrigin {
  url: string;
  /** The version a path is served at now (0 until bumped). */
  version(path: string): number;
  /** A new version of `path`, with new bytes and ETag (what a purge then makes the caches fetch). */
  bump(path: string): number;
  /** Every request so far, per path (HEAD and 304 included, with no bytes). */
  counts(): Map<string, OriginCounts>;
  /** Every answer with a body so far, in the order they ended. */
  answers(): readonly OriginAnswer[];
  /** Forgets the counts and the answers (between systems); versions stay bumped only if `keepVersions`. */
  reset(keepVersions?: boolean): void;
  close(): Promise<void>;
}

/** `content`: what each object holds (object-content.ts: a trace's playlists are real ones); computed bytes by default. */
export async function startCatalogueOrigin(
  objects: readonly TraceObject[],
  content: ContentBook = COMPUTED_CONTENT,
): Promise<CatalogueOrigin> {
  const sizes = new Map(objects.map((object) => [object.path, object.size]));
  const versions = new Map<string, number>();
  let counts = new Map<string, OriginCounts>();
  let answers: OriginAnswer[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://origin').pathname;
    const count = counts.get(path) ?? { requests: 0, bytes: 0 };
    counts.set(path, count);
    count.requests += 1;
    const size = sizes.get(path);
    if (size === undefined) return end(response, 404);
    const version = versions.get(path) ?? 0;
    serve(request, response, { path, size, version, content }, (answer) => {
      count.bytes += answer.sentBytes;
      answers.push(answer);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    version: (path) => versions.get(path) ?? 0,
    bump: (path) => {
      const next = (versions.get(path) ?? 0) + 1;
      versions.set(path, next);
      return next;
    },
    counts: () => counts,
    answers: () => answers,
    reset: (keepVersions = false) => {
      counts = new Map();
      answers = [];
      if (!keepVersions) versions.clear();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Served {
  path: string;
  size: number;
  version: number;
  content: ContentBook;
}

function serve(
  request: IncomingMessage,
  response: ServerResponse,
  object: Served,
  done: (answer: OriginAnswer) => void,
): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    end(response, 405, { allow: 'GET, HEAD' });
    return;
  }
  const id = { path: object.path, version: object.version };
  const etag = contentEtag(id, object.size);
  const headers: Record<string, string> = {
    etag,
    'last-modified': new Date(FIRST_MODIFIED_MS + object.version * 60_000).toUTCString(),
    'cache-control': `public, max-age=${MAX_AGE_SECONDS}`,
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
  };
  // RFC 9110 §13.1.2: If-None-Match naming the current tag (weak comparison) is a 304.
  if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    end(response, 304, headers);
    return;
  }
  // §13.1.5: a Range is honoured only if If-Range (when sent) names the current, strong tag.
  const ifRange = request.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? singleRange(request.headers.range, object.size) : undefined;
  if (range === 'unsatisfiable') {
    end(response, 416, { ...headers, 'content-range': `bytes */${object.size}` });
    return;
  }
  const start = range?.start ?? 0;
  const last = range?.end ?? object.size - 1;
  if (range) headers['content-range'] = `bytes ${start}-${last}/${object.size}`;
  const length = object.size === 0 ? 0 : last - start + 1;
  response.writeHead(range ? 206 : 200, { ...headers, 'content-length': String(length) });
  if (request.method === 'HEAD' || length === 0) return void response.end();
  const answer: OriginAnswer = {
    path: object.path,
    version: object.version,
    status: range ? 206 : 200,
    start,
    sentBytes: 0,
  };
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done(answer);
  };
  response.on('close', finish);
  void stream(response, object.content.of(id, object.size), start, length, answer).then(finish, finish);
}

/** Writes the bytes in chunks, waiting for the socket to drain, and stops when the client has gone. */
async function stream(
  response: ServerResponse,
  content: ObjectContent,
  start: number,
  length: number,
  answer: OriginAnswer,
) {
  for (let offset = 0; offset < length && !response.destroyed; offset += CHUNK_BYTES) {
    const chunk = content.bytes(start + offset, Math.min(CHUNK_BYTES, length - offset));
    const more = response.write(chunk);
    answer.sentBytes += chunk.length;
    if (!more) await drained(response);
  }
  response.end();
}

/** Until the socket drains or closes; both listeners removed after, so a long answer does not gather them. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

function end(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-length': '0' });
  response.end();
}
