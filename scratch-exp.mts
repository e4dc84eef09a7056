import { createServer } from 'node:http';
import { startTiercacheSystem } from './bench/sim/tiercache-system.ts';
import { defaultTopology } from './bench/sim/topology.ts';

const size = 2.5 * 1024 * 1024;
const data = Buffer.alloc(size, 7);
const log: string[] = [];
const t0 = performance.now();
const server = createServer((req, res) => {
  log.push(`${Math.round(performance.now() - t0)} ${req.method} ${req.url} ${req.headers.range ?? ''}`);
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  const h = {
    'content-type': 'video/mp4',
    'cache-control': 'public, max-age=86400',
    etag: '"c"',
    'accept-ranges': 'bytes',
  };
  if (m) {
    const s = Number(m[1]),
      e = Math.min(Number(m[2]), size - 1);
    res.writeHead(206, { ...h, 'content-length': e - s + 1, 'content-range': `bytes ${s}-${e}/${size}` });
    res.end(req.method === 'HEAD' ? undefined : data.subarray(s, e + 1));
    return;
  }
  res.writeHead(200, { ...h, 'content-length': size });
  res.end(req.method === 'HEAD' ? undefined : data);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const sys = await startTiercacheSystem(
  defaultTopology({ locations: 2, isolatesPerLocation: 2, kvPropagationMs: 2000, latencyScale: 0.05 }),
  { url },
  { config: { SLICE_SIZE: '1MiB' } },
);
log.push(`${Math.round(performance.now() - t0)} started`);
for (const [i, range] of [
  [0, ''],
  [1, 'bytes=0-99'],
  [1, 'bytes=1048576-1048675'],
  [1, ''],
] as const) {
  const t = performance.now();
  const r = await fetch(new URL('/clip.bin', sys.locations[i]!.url), { headers: range ? { range } : {} });
  const b = await r.arrayBuffer();
  log.push(
    `${Math.round(performance.now() - t0)} client ${i} ${range} ${r.status} ${b.byteLength} took ${Math.round(performance.now() - t)} ${r.headers.get('cache-status')} | ${r.headers.get('server-timing')}`,
  );
}
await sys.stop();
server.close();
console.log(log.join('\n'));
