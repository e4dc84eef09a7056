// The peers (bench/setup/peers/): a small local origin serving a 1 MiB and a 20 MiB object
// (validators, freshness, single ranges), each installed peer started in front of it, every
// object asked for twice and once as a range through each: the status and bytes must be right,
// and the second GET and the range must come from the cache. Prints what came back and how
// many requests reached the origin. A peer not installed is skipped (bash
// bench/setup/peers/install.sh installs both).
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTable } from '../../../bench/report/results.ts';
import { detectPeers, type Peer, startNginx, startVarnish } from '../../../bench/setup/peers/peers.ts';

const MIB = 2 ** 20;
const SLICE_SIZE = MIB;
const STORAGE_MIB = 64;
const REQUEST_TIMEOUT_MS = 30_000;
const LAST_MODIFIED = new Date('2026-01-30T10:15:02Z').toUTCString();

interface TestObject {
  path: string;
  body: Buffer;
  etag: string;
  /** The range asked for third, inclusive, crossing slice boundaries where the object has them. */
  range: { start: number; end: number };
}

interface Origin {
  url: string;
  /** Requests per path since the last reset. */
  requests: Map<string, number>;
  close(): Promise<void>;
}

const OBJECTS: TestObject[] = [
  testObject('/one-mib.bin', MIB, { start: 512 * 1024, end: MIB - 1 }),
  testObject('/twenty-mib.bin', 20 * MIB, { start: 1_000_000, end: 2_999_999 }),
];
const columns = ['peer', 'object', 'request', 'status', 'bytes', 'sha256', 'cache', 'origin requests', 'ok'];
const rows: string[][] = [];
const installed = await detectPeers();
let origin: Origin;

beforeAll(async () => {
  origin = await startOrigin(OBJECTS);
});
afterAll(async () => {
  await origin?.close();
  console.log(
    `varnish: ${installed.varnish ? `${installed.varnish.version} (${installed.varnish.bin})` : 'not installed (bench/setup/peers/install.sh)'}`,
  );
  console.log(
    `nginx:   ${installed.nginx ? `${installed.nginx.version} (${installed.nginx.bin}), slice module ${installed.nginx.hasSlice ? 'built in' : 'missing'}` : 'not installed (bench/setup/peers/install.sh)'}`,
  );
  console.log(`\n${formatTable({ columns, rows })}\n`);
});

// Each peer is checked where it is installed (bench/setup/peers/install.sh); bench:check runs there.
describe.skipIf(!installed.varnish)('Varnish (malloc)', () => {
  it('serves both objects, and their second GET and a range from its cache', async () => {
    const varnish = await startVarnish({
      origin: origin.url,
      storageMiB: STORAGE_MIB,
      ...(installed.varnish && { installed: installed.varnish }),
    });
    try {
      await checkPeer(varnish);
    } finally {
      await varnish.stop();
    }
  });
});

// nginx with its slice module, where installed (the peer the benchmarks compare slicing with).
describe.skipIf(!installed.nginx?.hasSlice)('nginx', () => {
  it('serves both objects, and their second GET and a range from its cache: proxy_cache, and the slice module', async () => {
    const nginx = await startNginx({
      origin: origin.url,
      sliceSize: SLICE_SIZE,
      ...(installed.nginx && { installed: installed.nginx }),
    });
    try {
      await checkPeer(nginx.cache);
      await checkPeer(nginx.slice);
    } finally {
      await nginx.cache.stop();
    }
  });
});

/** GET, GET again (must come from the cache), then a range (from the cache too, or its slices). */
async function checkPeer(peer: Peer): Promise<void> {
  origin.requests.clear();
  for (const object of OBJECTS) {
    for (const request of ['GET', 'GET again', 'Range'] as const) {
      const { start, end } = request === 'Range' ? object.range : { start: 0, end: object.body.length - 1 };
      const headers: Record<string, string> = request === 'Range' ? { Range: `bytes=${start}-${end}` } : {};
      const response = await fetch(`${peer.url}${object.path}`, {
        headers,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = Buffer.from(await response.arrayBuffer());
      const expected = object.body.subarray(start, end + 1);
      const statusRight = response.status === (request === 'Range' ? 206 : 200);
      const bytesRight = sha256(body) === sha256(expected);
      const cache = cacheVerdict(response.headers);
      const cached = request === 'GET' || cache.startsWith('HIT');
      rows.push([
        `${peer.name} ${peer.version}`,
        `${object.path} (${object.body.length / MIB} MiB)`,
        request === 'Range' ? `Range ${start}-${end}` : request,
        String(response.status),
        String(body.length),
        bytesRight ? 'right' : 'WRONG',
        cache,
        String(origin.requests.get(object.path) ?? 0),
        statusRight && bytesRight && cached ? 'yes' : 'NO',
      ]);
      const what = `${peer.name}: ${request} ${object.path}`;
      expect(response.status, what).toBe(request === 'Range' ? 206 : 200);
      expect(bytesRight, `${what}: the object's bytes`).toBe(true);
      expect(cached, `${what}: from the cache (${cache})`).toBe(true);
    }
  }
}

/** X-Cache-Status (both configs set it), with Varnish's own evidence: X-Varnish's ids and Age. */
function cacheVerdict(headers: Headers): string {
  const status = headers.get('x-cache-status') ?? '-';
  const varnishIds = headers.get('x-varnish')?.trim().split(/\s+/).length;
  return varnishIds === undefined
    ? status
    : `${status} (X-Varnish ${varnishIds} id${varnishIds === 1 ? '' : 's'}, Age ${headers.get('age') ?? '-'})`;
}

function testObject(path: string, size: number, range: TestObject['range']): TestObject {
  const body = randomBytes(size);
  return { path, body, etag: `"${sha256(body).slice(0, 32)}"`, range };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The shaped origin's stand-in: static objects with validators and freshness, single ranges (RFC 9110 §14.2). */
async function startOrigin(objects: readonly TestObject[]): Promise<Origin> {
  const requests = new Map<string, number>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://origin').pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const object = objects.find((candidate) => candidate.path === path);
    if (!object || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(object ? 405 : 404, { 'Content-Length': '0' }).end();
      return;
    }
    const size = object.body.length;
    const headers = {
      ETag: object.etag,
      'Last-Modified': LAST_MODIFIED,
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'max-age=3600',
      'Content-Type': 'application/octet-stream',
    };
    const range = parseRange(request.headers.range, size);
    if (range === 'unsatisfiable') {
      response.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}`, 'Content-Length': '0' }).end();
      return;
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const partial = range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {};
    response.writeHead(range ? 206 : 200, { ...headers, ...partial, 'Content-Length': String(end - start + 1) });
    response.end(request.method === 'HEAD' ? undefined : object.body.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

/** One `bytes=` range, inclusive; undefined for none or one this origin ignores (multiple ranges). */
function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [first, last] = [match[1] ?? '', match[2] ?? ''];
  const start = first === '' ? Math.max(0, size - Number(last)) : Number(first);
  const end = first === '' || last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}
