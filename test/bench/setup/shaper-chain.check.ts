// Shapers in a chain (bench/sim's links: client → edge, edge → shield, shield → origin): with `latencyFrom:
// 'response'` a first byte waits the sum of the links' latencies, as topology.ts firstByteFloorMs counts a path; with
// the default (`request`) nested links overlap, so the chain answers after about the largest of them. A loopback
// origin behind three shapers, each mode asked a few times; the printed table gives both. Only what no load can
// cause is asserted: no first byte sooner than the sum in `response` mode.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTable } from '../../../bench/report/results.ts';
import { type Shaper, startShaper } from '../../../bench/setup/shaper.ts';

/** Client link, shield link, origin link: the default map's iad (topology.ts). */
const LATENCIES_MS = [10, 90, 30];
const SUM_MS = LATENCIES_MS.reduce((sum, ms) => sum + ms, 0);
const ASKS = 3;
const rows: string[][] = [];
let origin: Server;
let originUrl: string;

beforeAll(async () => {
  origin = createServer((_, res) => res.writeHead(200, { 'content-length': 2 }).end('ok'));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => origin.close(resolve));
  console.log(formatTable({ columns: ['latencyFrom', 'links ms', 'sum ms', 'first bytes ms'], rows }));
});

describe.each(['response', 'request'] as const)('three shapers chained, latency from the %s', (latencyFrom) => {
  it('answers each request through every link', async () => {
    const chain: Shaper[] = [];
    try {
      // Built from the origin out: the origin link first, the client link last.
      let target = originUrl;
      for (const latencyMs of [...LATENCIES_MS].reverse()) {
        const shaper = await startShaper({ target, firstByteLatencyMs: latencyMs, latencyFrom });
        chain.push(shaper);
        target = shaper.url;
      }
      const firstBytes: number[] = [];
      for (let ask = 0; ask < ASKS; ask++) {
        const started = performance.now();
        const response = await fetch(`${target}/?${ask}`);
        firstBytes.push(performance.now() - started);
        expect(await response.text()).toBe('ok');
      }
      rows.push([
        latencyFrom,
        LATENCIES_MS.join(' + '),
        String(SUM_MS),
        firstBytes.map((ms) => ms.toFixed(0)).join(', '),
      ]);
      for (const shaper of chain) expect(shaper.stats().requests).toBe(ASKS);
      if (latencyFrom === 'response') for (const ms of firstBytes) expect(ms).toBeGreaterThanOrEqual(SUM_MS);
    } finally {
      await Promise.all(chain.map((shaper) => shaper.close()));
    }
  });
});
