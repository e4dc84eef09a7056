// The sample site (local/assets.ts: its pages and its real video) served as a plain web server would, for
// `ORIGIN_KIND=http`: every path of the video, whatever its query, is the video, so each run can ask a fresh URL.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { sampleAssets, VIDEO_ASSET_KEY } from '../../local/assets.ts';
import { closeServer, listen } from '../../local/server.ts';

const MAX_AGE = 3600;

export interface SampleSiteOrigin {
  url: string;
  /** The video's path and size. */
  video: { path: string; size: number };
  close(): Promise<void>;
}

interface Asset {
  body: Uint8Array;
  contentType: string;
  etag: string;
}

/** The sample site's assets held in memory (the 64 MiB binary left out: nothing here reads it), on a loopback port. */
export async function startSampleSiteOrigin(): Promise<SampleSiteOrigin> {
  const typed = new Map<string, { body: Uint8Array; contentType: string }>();
  for (const asset of sampleAssets()) {
    if (asset.body instanceof Uint8Array)
      typed.set(`/${asset.key}`, { body: asset.body, contentType: asset.contentType });
  }
  const video = typed.get(`/${VIDEO_ASSET_KEY}`);
  if (video === undefined) throw new Error(`the sample site has no ${VIDEO_ASSET_KEY}`);
  const origin = await startAssetOrigin(typed);
  return { ...origin, video: { path: `/${VIDEO_ASSET_KEY}`, size: video.body.length } };
}

/** `objects` (path → bytes and type) served as a plain web server would (serve, below), on a loopback port. */
export async function startAssetOrigin(
  objects: ReadonlyMap<string, { body: Uint8Array; contentType: string }>,
): Promise<{ url: string; close(): Promise<void> }> {
  const assets = new Map<string, Asset>();
  for (const [path, { body, contentType }] of objects)
    assets.set(path, { body, contentType, etag: `"${body.length.toString(16)}-${assets.size}"` });
  const lastModified = new Date(Date.now() - 86_400_000).toUTCString();
  const server = createServer((request, response) => serve(assets, lastModified, request, response));
  const url = await listen(server, 0);
  return { url, close: () => closeServer(server) };
}

/**
 * GET and HEAD; a strong ETag, Last-Modified and `Cache-Control: max-age=3600`; one byte range (RFC 9110 §14.2, a
 * multi-range request answered whole); If-None-Match (§13.1.2).
 */
function serve(assets: Map<string, Asset>, lastModified: string, request: IncomingMessage, response: ServerResponse) {
  const path = new URL(request.url ?? '/', 'http://origin').pathname;
  const asset = assets.get(path === '/' ? '/index.html' : path);
  if (request.method !== 'GET' && request.method !== 'HEAD') return end(response, 405, { allow: 'GET, HEAD' });
  if (asset === undefined) return end(response, 404);
  const size = asset.body.length;
  const headers: Record<string, string> = {
    'content-type': asset.contentType,
    etag: asset.etag,
    'last-modified': lastModified,
    'cache-control': `max-age=${MAX_AGE}`,
    'accept-ranges': 'bytes',
  };
  if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === asset.etag))
    return end(response, 304, headers);
  const range = singleRange(request.headers.range, size);
  if (range === 'unsatisfiable') return end(response, 416, { ...headers, 'content-range': `bytes */${size}` });
  const { start, end: last } = range ?? { start: 0, end: size - 1 };
  if (range !== undefined) headers['content-range'] = `bytes ${start}-${last}/${size}`;
  headers['content-length'] = String(last - start + 1);
  response.writeHead(range === undefined ? 200 : 206, headers);
  response.end(request.method === 'HEAD' ? undefined : asset.body.subarray(start, last + 1));
}

/** One `bytes=` range of a representation of `size` bytes (§14.1.2); undefined: none, or more than one. */
function singleRange(
  field: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(field?.trim() ?? '');
  if (match === null || (match[1] === '' && match[2] === '')) return undefined;
  const [first, last] = [match[1] ?? '', match[2] ?? ''];
  if (first === '') {
    const suffix = Number(last);
    return suffix === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

function end(response: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-length': '0' });
  response.end();
}
