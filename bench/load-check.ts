// `node bench/load-check.ts`: the load generator against a local node:http server answering
// 20 KiB, run the two ways the benchmarks run it (10 connections × 50 requests; 50 connections
// for 2 s), with wrk (when installed) and with the Node generator; wrk's fixed count is checked
// against what the server saw (exactly the count sent, none more), with the server closing
// connections left idle (not answers) and one under its request (an error, and the run reported
// once answers stop, not left hanging); its status counting against a server that answers some
// requests 302, with small bodies (counted by wrk-load.lua's hook) and with large ones (counted
// from the bytes). Plus tierStats on scripted
// Cache-Status/Server-Timing answers and wrkLoadResult on a wrk summary line. The server shares
// this process's CPU with the generator: the rates are a floor. Exits 1 when a count or a parsed
// number is not what it must be.

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LoadResult, runLoad, sampleHeaders, tierStats, withFirstAnswer } from './load.ts';
import { parseWrkJson, wrkInstalled, wrkLoadResult } from './wrk.ts';
import { describeError, describeMachine, formatTable, machine } from './report.ts';

const BODY = Buffer.alloc(20 * 1024, 'x');
/** Per request to /tiers, in turn: what the edge and the shield said, and the times they report. */
const TIER_ANSWERS = [
  { status: 'tiercache-edge; hit; ttl=60', timing: 'edge;dur=1' },
  { status: 'tiercache-shield; hit; detail="a; b", tiercache-edge; fwd=miss; stored', timing: 'shield;dur=3, edge;dur=1' },
  { status: 'tiercache-shield; fwd=miss; stored, tiercache-edge; fwd=miss; stored', timing: 'origin;dur=10, shield;dur=3, edge;dur=1' },
  { status: 'tiercache-shield; fwd=stale, tiercache-edge; fwd=stale', timing: 'origin;dur=10, shield;dur=3, edge;dur=1;desc="x"' },
] as const;
const WRK_LINE = `Running 2s test @ http://127.0.0.1:8080/
tiercache-wrk-json: {"requests":500,"bytes":52500000,"durationUs":2100000,"elapsedUs":2000000,"threads":2,"finished":2,"sent":500,"answered":500,"lost":0,"latencySumUs":400000,"non2xx":0,"countedStatuses":false,"errors":{"connect":0,"read":2,"write":0,"timeout":1,"status":3},"latencyUs":{"mean":635.91,"p50":580,"p99":1950,"max":12350}}
`;
const IDLE_CLOSE_MS = 100;
/** Every seventh request to /redirect-* is answered 302 with a short body. */
const REDIRECT_EVERY = 7;
const LARGE_BODY = Buffer.alloc(2 * 1024 * 1024, 'y');

await main();

async function main(): Promise<void> {
  let served = 0;
  let tierRequests = 0;
  let redirectRequests = 0;
  let staggerRequests = 0;
  let loseRequests = 0;
  // Like workerd, the server closes a keep-alive connection left idle (here after 100 ms).
  const idle = new WeakMap<object, NodeJS.Timeout>();
  const server = createServer((request, response) => {
    served++;
    clearTimeout(idle.get(request.socket));
    response.on('finish', () => idle.set(request.socket, setTimeout(() => request.socket.end(), IDLE_CLOSE_MS)));
    if (request.url?.startsWith('/lose-') && ++loseRequests === Number(request.url.slice('/lose-'.length))) return void request.socket.destroy();
    if (request.url === '/stagger') {
      // Every tenth answer comes late (400 ms), while connections done with their share sit idle.
      const late = ++staggerRequests % 10 === 0;
      return void setTimeout(() => response.writeHead(200, { 'content-length': BODY.length }).end(BODY), late ? 400 : 0);
    }
    if (request.url?.startsWith('/redirect-')) {
      if (++redirectRequests % REDIRECT_EVERY === 0) return void response.writeHead(302, { location: '/object.bin', 'content-length': 5 }).end('moved');
      const body = request.url === '/redirect-large' ? LARGE_BODY : BODY;
      return void response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
    }
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
    const runs: [string, LoadResult][] = [];
    const wrk = await wrkInstalled();
    for (const tool of wrk ? (['wrk 4.x', 'node-http'] as const) : (['node-http'] as const)) {
      const servedBefore = served;
      const fixed = await runLoad({ url, connections: 10, requests: 10 * 50, maxSeconds: 30, tool, bodyBytes: BODY.length });
      const what = `10 × 50 (${tool})`;
      expect(fixed.requests === 500 && fixed.sent === 500 && fixed.errors === 0 && fixed.non2xx === 0, `${what}: 500 sent, 500 responses, no errors (got ${fixed.sent} sent, ${fixed.requests}, ${fixed.errors} errors, ${fixed.non2xx} non-2xx)`);
      expect(served - servedBefore === 500, `${what}: the server saw exactly 500 requests (saw ${served - servedBefore})`);
      // A closed loop: 10 connections busy for the run at most, so the mean is at most 10 × elapsed / 500.
      const busiest = (10 * fixed.elapsedSec * 1000) / 500;
      expect(fixed.latency.meanMs > 0 && fixed.latency.meanMs <= busiest * 1.05, `${what}: mean latency ${fixed.latency.meanMs.toFixed(2)} ms within 10 × elapsed / 500 = ${busiest.toFixed(2)} ms`);
      // wrk's bytes include the headers (about 150 bytes each from node:http).
      const headerBound = tool === 'node-http' ? 0 : 400;
      expect(fixed.bytes >= 500 * BODY.length && fixed.bytes <= 500 * (BODY.length + headerBound), `${what}: 500 bodies read (${fixed.bytes} bytes)`);
      runs.push([what, fixed]);
    }
    if (wrk) {
      // Connections done with their share sit idle while the late answers come, and the server
      // closes them: wrk reopens them (and counts a read error), which must not count as an answer.
      const servedBefore = served;
      const staggered = await runLoad({ url: url.replace('/object.bin', '/stagger'), connections: 10, requests: 50, maxSeconds: 30, tool: 'wrk 4.x', bodyBytes: BODY.length });
      console.log(`staggered: ${JSON.stringify(staggered)}`);
      expect(staggered.requests === 50 && staggered.sent === 50 && staggered.errors === 0 && served - servedBefore === 50 && (staggered.socketErrors ?? 0) > 0, `wrk, 50 requests, idle connections closed (wrk counts read errors): 50 answers, 50 served, no errors (got ${staggered.requests}, ${served - servedBefore} served, ${staggered.errors} errors, wrk's socket errors ${staggered.socketErrors})`);
      // One request's connection is closed under it: 49 answers and 1 error. The 7th is seen lost
      // at once (while the share lasts no connection is idle); the 50th, the last sent, once no
      // answer has come for the request timeout (here 2 s), not after the run's limit.
      for (const nth of [7, 50]) {
        loseRequests = 0;
        const started = performance.now();
        const lossy = await runLoad({ url: url.replace('/object.bin', `/lose-${nth}`), connections: 10, requests: 50, timeoutSec: 2, maxSeconds: 30, tool: 'wrk 4.x', bodyBytes: BODY.length });
        const wallSec = (performance.now() - started) / 1000;
        const bound = nth === 50 ? 4 : 1;
        expect(lossy.requests === 49 && lossy.sent === 50 && lossy.errors === 1 && lossy.elapsedSec < 1 && wallSec < bound, `wrk, 50 requests, the ${nth}th's connection closed under it: 49 answers, 1 error, elapsed to the last answer, done within ${bound} s (got ${lossy.requests}, ${lossy.errors} errors, ${lossy.elapsedSec.toFixed(2)} s, ${wallSec.toFixed(2)} s in all)`);
      }
      // 50 requests, every seventh answered 302: 7 of them; hook-counted (20 KiB) and byte-counted (2 MiB).
      for (const [path, bodyBytes] of [['/redirect-small', BODY.length], ['/redirect-large', LARGE_BODY.length]] as const) {
        redirectRequests = 0;
        const counted = await runLoad({ url: url.replace('/object.bin', path), connections: 10, requests: 50, maxSeconds: 30, tool: 'wrk 4.x', bodyBytes });
        expect(counted.requests === 50 && counted.non2xx === 7, `wrk, 50 requests to ${path}: 7 answered 302 counted as non-2xx (got ${counted.requests} responses, ${counted.non2xx} non-2xx)`);
      }
    }
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

    const summary = parseWrkJson(WRK_LINE);
    const parsed = wrkLoadResult(summary, { requests: 500, bodyBytes: 105_000 });
    console.log(`wrkLoadResult of a summary line: ${JSON.stringify(parsed)}`);
    expect(parsed.requests === 500 && parsed.sent === 500 && parsed.errors === 0 && parsed.socketErrors === 3 && parsed.elapsedSec === 2, "wrk counts (a fixed count's errors: sent and not answered), and the script's clock over wrk's");
    expect(wrkLoadResult({ ...summary, requests: 498 }, { requests: 500 }).errors === 2, 'wrk: 2 sent and not answered are 2 errors');
    expect(parsed.non2xx === 3, 'wrk statuses: its own ≥ 400 count, plus no short bodies (500 × 105,000 bytes read)');
    expect(wrkLoadResult(summary, { requests: 500, bodyBytes: 106_000 }).non2xx === 3 + 5, 'wrk statuses: 500,000 bytes short of 500 × 106,000 = 5 bodies missing');
    expect(parsed.latency.meanMs === 0.8 && parsed.latency.p99Ms === 1.95 && parsed.latency.maxMs === 12.35, "wrk latencies: the script's mean (400 ms over 500), wrk's p99 and max");
    expect(Math.abs(wrkLoadResult(summary, {}).latency.meanMs - 0.63591) < 1e-9, "a duration run: wrk's mean");
    expect(wrkLoadResult(summary, {}).elapsedSec === 2.1, "a duration run: wrk's own duration");

    // A cold phase: one GET alone (200 ms, 105,000 bytes), then 499 under load.
    const rest = wrkLoadResult({ ...summary, requests: 499, sent: 499, bytes: 499 * 105_000 }, { requests: 499, bodyBytes: 105_000 });
    const whole = withFirstAnswer({ status: 200, bytes: 105_000, totalMs: 200 }, rest);
    expect(whole.requests === 500 && whole.sent === 500 && whole.bytes === 500 * 105_000 && whole.elapsedSec === 2.2, 'withFirstAnswer: counts, bytes and times add up');
    expect(Math.abs(whole.latency.meanMs - (200 + rest.latency.meanMs * 499) / 500) < 1e-9 && whole.latency.maxMs === 200 && whole.latency.p99Ms === 1.95, 'withFirstAnswer: mean and max take the first in, p99 is the load\'s');
    expect(withFirstAnswer({ status: 304, bytes: 0, totalMs: 1 }, rest).non2xx === rest.non2xx + 1, 'withFirstAnswer: a first answer outside 2xx counts');
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
