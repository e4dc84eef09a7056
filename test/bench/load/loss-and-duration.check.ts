// The load generators' runs that take their time (bench:check): wrk with a connection closed
// under a request, seen lost at once while the share lasts, and, for the last request sent,
// once no answer has come for the request timeout, not after the run's limit; and 2-second
// duration runs over two URLs with wrk (when installed) and with the Node generator, which must
// count every request the server answered. Prints the duration runs' table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/load/load-result.ts';
import { runLoad } from '../../../bench/load/run-load.ts';
import { wrkInstalled } from '../../../bench/load/wrk.ts';
import { describeMachine, formatTable, machine } from '../../../bench/report/results.ts';
import { BODY, type ScriptedServer, startScriptedServer } from './scripted-server.ts';

const wrk = await wrkInstalled();
let server: ScriptedServer;
const runs: [string, LoadResult][] = [];

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server?.close();
  if (runs.length > 0) console.log(`${describeMachine(machine())}\n\n${formatTable(resultsTable(runs))}`);
});

// Needs wrk (a benchmark peer, bench/setup/peers/install.sh); bench:check runs where the peers are.
describe.skipIf(!wrk)('wrk, 50 requests, one connection closed under its request', () => {
  // The 7th is seen lost at once (while the share lasts no connection is idle); the 50th, the
  // last sent, once no answer has come for the request timeout (here 2 s).
  it.each([
    [7, 1],
    [50, 4],
  ] as const)('the %ith: 49 answers, 1 error, elapsed to the last answer, done within %i s', async (nth, boundSec) => {
    server.resetCounts();
    const started = performance.now();
    const lossy = await runLoad({
      url: server.at(`/lose-${nth}`),
      connections: 10,
      requests: 50,
      timeoutSec: 2,
      maxSeconds: 30,
      tool: 'wrk 4.x',
      bodyBytes: BODY.length,
    });
    const wallSec = (performance.now() - started) / 1000;
    expect({ requests: lossy.requests, sent: lossy.sent, errors: lossy.errors }).toEqual({
      requests: 49,
      sent: 50,
      errors: 1,
    });
    expect(lossy.elapsedSec).toBeLessThan(1);
    expect(wallSec).toBeLessThan(boundSec);
  });
});

describe('50 connections for 2 s over 2 URLs', () => {
  // By default wrk when installed; then the Node generator for the same 2 s, to compare.
  it.each([
    ['by default', undefined],
    ['with the Node generator', 'node-http'],
  ] as const)('%s: answers, no errors, every request served counted, 2 s', async (_, tool) => {
    const servedBefore = server.served();
    const timed = await runLoad({
      url: [server.url, `${server.url}?b`],
      connections: 50,
      durationSec: 2,
      maxSeconds: 10,
      ...(tool ? { tool } : {}),
    });
    runs.push([`50 connections × 2 s, 2 URLs (${timed.tool === 'wrk 4.x' ? 'wrk' : 'Node'})`, timed]);
    expect(timed.requests).toBeGreaterThan(0);
    expect(timed.errors).toBe(0);
    // Held to the server's count for the Node generator only: wrk stops mid-request at the end of its -d.
    if (timed.tool === 'node-http') expect(server.served() - servedBefore).toBe(timed.requests);
    expect(timed.elapsedSec).toBeGreaterThanOrEqual(2);
    expect(timed.elapsedSec).toBeLessThan(3);
  });
});

function resultsTable(rows: [string, LoadResult][]) {
  const columns = [
    'run',
    'tool',
    'requests',
    'errors',
    'non-2xx',
    'seconds',
    'req/s',
    'MiB/s',
    'mean ms',
    'p50 ms',
    'p99 ms',
    'max ms',
  ];
  return {
    columns,
    rows: rows.map(([name, r]) => [
      name,
      r.tool,
      String(r.requests),
      String(r.errors),
      String(r.non2xx),
      r.elapsedSec.toFixed(2),
      r.reqPerSec.toFixed(0),
      r.mibPerSec.toFixed(1),
      ...[r.latency.meanMs, r.latency.p50Ms, r.latency.p99Ms, r.latency.maxMs].map((ms) => ms.toFixed(2)),
    ]),
  };
}
