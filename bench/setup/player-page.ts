// bench:players' page: a site of its own (another origin than the CDN, as an embed on a partner's page is) serving a
// page with a <video>, hls.js and dash.js from node_modules (the pinned devDependencies), and nothing else. The players
// reach the CDN cross-origin, with no cookie: a signed playlist URL is all they are given.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { closeServer, listen } from '../../local/server.ts';

/** The packages' own files (dashjs's exports name none of them: read by path). */
const NODE_MODULES = new URL('../../node_modules/', import.meta.url);
const SCRIPTS: Readonly<Record<string, string>> = {
  '/hls.js': 'hls.js/dist/hls.min.js',
  '/dash.js': 'dashjs/dist/modern/umd/dash.all.min.js',
};
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>bench:players</title>
<script src="/hls.js"></script><script src="/dash.js"></script></head>
<body><video width="640" height="360" muted playsinline></video></body></html>
`;

export interface PlayerPage {
  /** The page's origin (`http://127.0.0.1:PORT`), for CORS_ALLOW_ORIGINS. */
  origin: string;
  /** The page. */
  url: string;
  /** The players' versions, as their packages say. */
  versions: { hls: string; dash: string };
  close(): Promise<void>;
}

export async function startPlayerPage(): Promise<PlayerPage> {
  const files = new Map<string, string>([['/player.html', PAGE]]);
  for (const [path, file] of Object.entries(SCRIPTS))
    files.set(path, readFileSync(new URL(file, NODE_MODULES), 'utf8'));
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const body = files.get(path);
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    const type = path.endsWith('.html') ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8';
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  });
  const origin = await listen(server, 0);
  const version = (name: string) =>
    (JSON.parse(readFileSync(new URL(`${name}/package.json`, NODE_MODULES), 'utf8')) as { version: string }).version;
  return {
    origin,
    url: `${origin}/player.html`,
    versions: { hls: version('hls.js'), dash: version('dashjs') },
    close: () => closeServer(server),
  };
}
