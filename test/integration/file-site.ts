// A static site serving the files of a temporary folder as a plain web server does (nginx's static module, RFC 9110):
// a strong ETag and a Last-Modified on every answer, one byte range (206, or 416 past the end), If-Match (412),
// If-None-Match and If-Modified-Since (304), HEAD, and its own 404 page. A test writes the files, and changes them
// between requests.

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { closeServer, listen } from '../../local/server.ts';

export interface FileSite {
  url: string;
  /** Writes `bytes` as the file at `path` (from `/`), replacing what was there: a new version, with a new ETag. */
  write(path: string, bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

const NOT_FOUND_PAGE = '<!doctype html><title>Not found</title><h1>The site’s own 404 page</h1>\n';

export async function startFileSite(): Promise<FileSite> {
  const root = await mkdtemp(join(tmpdir(), 'tiercache-files-'));
  const server = createServer((req, res) => {
    serve(root, req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  const url = await listen(server, 0);
  return {
    url,
    async write(path, bytes) {
      const file = inside(root, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, bytes);
    },
    async close() {
      await closeServer(server);
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function serve(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  req.resume();
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-length': 0 }).end();
    return;
  }
  const file = inside(root, decodeURIComponent(new URL(req.url ?? '/', 'http://site').pathname));
  const found = await stat(file).catch(() => undefined);
  if (found === undefined || !found.isFile()) {
    res.writeHead(404, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(NOT_FOUND_PAGE) });
    res.end(head ? undefined : NOT_FOUND_PAGE);
    return;
  }
  const bytes = await readFile(file);
  // Of the content, not of its time and size as nginx's is: a file rewritten within the same second with as many
  // bytes is another version all the same.
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
  const lastModified = new Date(Math.floor(found.mtimeMs / 1000) * 1000).toUTCString();
  const validators = { etag, 'last-modified': lastModified, 'accept-ranges': 'bytes' };
  const headers = { ...validators, 'content-type': 'application/octet-stream', 'cache-control': 'max-age=60' };
  // RFC 9110 §13.2.2: If-Match first, then If-None-Match (or If-Modified-Since without it), then Range.
  if (!ifMatch(req.headers['if-match'], etag)) {
    res.writeHead(412, { ...validators, 'content-length': 0 }).end();
    return;
  }
  if (notModified(req, etag, found.mtimeMs)) {
    res.writeHead(304, headers).end();
    return;
  }
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range === null) {
    res.writeHead(200, { ...headers, 'content-length': bytes.length });
    res.end(head ? undefined : bytes);
    return;
  }
  const start = Number(range[1]);
  // RFC 9110 §14.1.2: a range starting past the end is unsatisfiable (that of an empty file always is).
  if (start >= bytes.length) {
    res.writeHead(416, { ...validators, 'content-range': `bytes */${bytes.length}`, 'content-length': 0 }).end();
    return;
  }
  const end = Math.min(range[2] === '' ? bytes.length - 1 : Number(range[2]), bytes.length - 1);
  res.writeHead(206, {
    ...headers,
    'content-range': `bytes ${start}-${end}/${bytes.length}`,
    'content-length': end - start + 1,
  });
  res.end(head ? undefined : bytes.subarray(start, end + 1));
}

/** RFC 9110 §13.1.1: `*` or a list of tags, compared strongly. */
function ifMatch(field: string | undefined, etag: string): boolean {
  if (field === undefined) return true;
  const tags = field.split(',').map((tag) => tag.trim());
  return tags.includes('*') || tags.includes(etag);
}

/** RFC 9110 §13.1.2 (weak comparison), or §13.1.3 when no If-None-Match was sent. */
function notModified(req: IncomingMessage, etag: string, mtimeMs: number): boolean {
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) {
    const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
    return noneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
  }
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && Math.floor(mtimeMs / 1000) * 1000 <= since;
}

/** `path` under `root`, never above it. */
function inside(root: string, path: string): string {
  return join(root, normalize(`/${path}`));
}
