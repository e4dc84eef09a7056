// `node bench/load-check.ts`: the load generator against a local node:http server answering
// 20 KiB, run the two ways the benchmarks run it (10 connections × 50 requests; 50 connections
// for 2 s), plus tierStats on scripted Cache-Status/Server-Timing answers and parseWrkOutput on a
// wrk report. The server shares this process's CPU with the generator: the rates are a floor.
// Exits 1 when a count or a parsed number is not what it must be.

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LoadResult, parseWrkOutput, runLoad, sampleHeaders, tierStats } from './load.ts';
import { describeError, describeMachine, formatTable, machine } from './report.ts';

const BODY = Buffer.alloc(20 * 1024, 'x');
/** Per request to /tiers, in turn: what the edge and the shield said, and the times they report. */
const TIER_ANSWERS = [
  { status: 'tiercache-edge; hit; ttl=60', timing: 'edge;dur=1' },
  { status: 'tiercache-shield; hit; detail="a; b", tiercache-edge; fwd=miss; stored', timing: 'shield;dur=3, edge;dur=1' },
  { status: 'tiercache-shield; fwd=miss; stored, tiercache-edge; fwd=miss; stored', timing: 'origin;dur=10, shield;dur=3, edge;dur=1' },
  { status: 'tiercache-shield; fwd=stale, tiercache-edge; fwd=stale', timing: 'origin;dur=10, shield;dur=3, edge;dur=1;desc="x"' },
] as const;
const WRK_REPORT = `Running 2s test @ http://127.0.0.1:8080/
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   635.91us  400.14us  12.35ms   93.02%
    Req/Sec    39.52k     2.31k   43.10k    72.50%
  Latency Distribution
     50%  580.00us
     75%  700.00us
     90%  850.00us
     99%    1.95ms
  78651 requests in 2.00s, 1.51GB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 7
Requests/sec:  39325.50
Transfer/sec:    772.38MB
`;

await main();

async function main(): Promise<void> {
  let served = 0;
  let tierRequests = 0;
  const server = createServer((request, response) => {
    served++;
    if (request.url === '/tiers') {
      const answer = TIER_ANSWERS[tierRequests++ % TIER_ANSWERS.length];
      response.setHeader('cache-status', answer?.status ?? '');
      response.setHeader('server-timing', answer?.timing ?? '');
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': BODY.length }).end(BODY);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/object.bin`;
  const failures: string[] = [];
  const expect = (ok: boolean, what: string) => void (ok || failures.push(what));
  try {
    console.log(describeMachine(machine()));
    const fixed = await runLoad({ url, connections: 10, requests: 10 * 50, maxSeconds: 30 });
    expect(fixed.requests === 500 && fixed.errors === 0 && fixed.non2xx === 0, `10 × 50: 500 responses, no errors (got ${fixed.requests}, ${fixed.errors} errors)`);
    expect(fixed.bytes === 500 * BODY.length, `10 × 50: ${500 * BODY.length} body bytes (got ${fixed.bytes})`);
    const runs: [string, LoadResult][] = [['10 connections × 50 requests', fixed]];
    // By default wrk when installed; then the Node generator for the same 2 s, to compare.
    for (const tool of [undefined, 'node-http'] as const) {
      const servedBefore = served;
      const timed = await runLoad({ url: [url, `${url}?b`], connections: 50, durationSec: 2, maxSeconds: 10, ...(tool ? { tool } : {}) });
      const what = `50 connections × 2 s, 2 URLs (${timed.tool === 'wrk 4.x' ? 'wrk' : 'Node'})`;
      expect(timed.errors === 0 && timed.requests > 0, `${what}: responses and no errors (got ${timed.requests}, ${timed.errors} errors)`);
      expect(timed.tool === 'wrk 4.x' || served - servedBefore === timed.requests, `${what}: every request served counted (${served - servedBefore} served, ${timed.requests})`);
      expect(timed.elapsedSec >= 2 && timed.elapsedSec < 3, `${what}: ran 2 s (took ${timed.elapsedSec.toFixed(2)} s)`);
      if (runs.some(([name]) => name === what)) continue;
      runs.push([what, timed]);
    }
    console.log(`\n${formatTable(resultsTable(runs))}`);

    const tiers = tierStats(await sampleHeaders(url.replace('/object.bin', '/tiers'), ['Cache-Status', 'Server-Timing'], 8));
    console.log(`\ntierStats of 8 scripted responses: ${JSON.stringify(tiers)}`);
    expect(tiers.edge.hits === 2 && tiers.edge.forwards === 6 && tiers.edge.hitRatio === 0.25, 'edge: 2 hits, 6 forwards');
    expect(tiers.shield.hits === 2 && tiers.shield.forwards === 4, 'shield: 2 hits, 4 forwards (the edge hits not counted)');
    expect(tiers.timing.edge.meanMs === 1 && tiers.timing.shield.meanMs === 3 && tiers.timing.origin.count === 4, 'Server-Timing means');

    const wrk = parseWrkOutput(WRK_REPORT);
    console.log(`parseWrkOutput of a wrk 4.2 report: ${JSON.stringify(wrk)}`);
    expect(wrk.requests === 78651 && wrk.errors === 3 && wrk.non2xx === 7 && wrk.elapsedSec === 2, 'wrk counts');
    expect(Math.abs(wrk.latency.meanMs - 0.63591) < 1e-9 && wrk.latency.p99Ms === 1.95 && wrk.latency.maxMs === 12.35, 'wrk latencies');
    expect(Math.abs(wrk.mibPerSec - 772.38) < 1e-9 && wrk.bytes === Math.round(1.51 * 2 ** 30), 'wrk transfer');
  } catch (error) {
    failures.push(`the check threw: ${describeError(error)}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
  for (const failure of failures) console.error(`FAIL ${failure}`);
  console.log(failures.length === 0 ? '\nload-check: PASS' : `\nload-check: ${failures.length} FAILED`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}

function resultsTable(runs: [string, LoadResult][]) {
  const columns = ['run', 'tool', 'requests', 'errors', 'non-2xx', 'seconds', 'req/s', 'MiB/s', 'mean ms', 'p50 ms', 'p99 ms', 'max ms'];
  const rows = runs.map(([name, r]) => [
    name,
    r.tool,
    String(r.requests),
    String(r.errors),
    String(r.non2xx),
    r.elapsedSec.toFixed(2),
    r.reqPerSec.toFixed(0),
    r.mibPerSec.toFixed(1),
    ...[r.latency.meanMs, r.latency.p50Ms, r.latency.p99Ms, r.latency.maxMs].map((ms) => ms.toFixed(2)),
  ]);
  return { columns, rows };
}
