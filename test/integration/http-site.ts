// A small web site for the `http` origin kind: static pages with validators and explicit
// freshness, and a form endpoint that accepts POST (what a site behind a CDN really has).
// It records what it received, as the S3 tap does.

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Site {
  url: string;
  received: Received[];
  /** Replace or add a page (answered with `status`: 200 unless said). */
  page(path: string, body: string | Uint8Array, headers?: Record<string, string>, status?: number): void;
  close(): Promise<void>;
}

export async function startSite(): Promise<Site> {
  const pages = new Map<string, { body: Buffer; headers: Record<string, string>; status: number }>();
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '/';
    received.push({ method: req.method ?? '', path, headers: flatten(req.headers), body });
    if (req.method === 'POST' && path === '/comments') {
      // A new resource, and a representation on another host: RFC 9111 §4.4's two cases.
      res.writeHead(201, {
        'content-type': 'text/plain',
        location: '/page2.html',
        'content-location': 'http://elsewhere.example/page3.html',
      });
      res.end('created');
      return;
    }
    if (req.method === 'POST' || req.method === 'PUT' || req.method === 'DELETE') {
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'text/plain', 'set-cookie': 'flash=saved' });
      res.end(`${req.method} ${path} got ${body.length} bytes`);
      return;
    }
    // Joined, not resolved: a path like `//x` is a path here too.
    const page = pages.get(new URL(`http://site${path.startsWith('/') ? '' : '/'}${path}`).pathname);
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>the site’s own 404 page</h1>');
      return;
    }
    // Byte ranges only where the page says so (Accept-Ranges), as a plain static server would.
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range && page.headers['accept-ranges'] === 'bytes') {
      const start = Number(range[1]);
      const end = Math.min(Number(range[2]), page.body.length - 1);
      res.writeHead(206, {
        'content-type': 'text/html',
        'content-length': end - start + 1,
        'content-range': `bytes ${start}-${end}/${page.body.length}`,
        ...page.headers,
      });
      res.end(req.method === 'HEAD' ? undefined : page.body.subarray(start, end + 1));
      return;
    }
    res.writeHead(page.status, { 'content-type': 'text/html', 'content-length': page.body.length, ...page.headers });
    res.end(req.method === 'HEAD' ? undefined : page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    page: (path, body, headers = {}, status = 200) => pages.set(path, { body: Buffer.from(body), headers, status }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function flatten(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
