// The load generators (bench/load/) against a local server (scripted-server.ts), the way the
// benchmarks run them for a fixed count: 10 connections × 50 requests, with wrk (when installed)
// and with the Node generator. A fixed count is checked against what the server saw (exactly the
// count sent, none more); with wrk, connections the server closes while idle must not count as
// answers, and statuses must be counted both ways wrk counts them: by wrk-load.lua's hook for
// small bodies, from the bytes for large ones. Then tierVerdicts on sampleHeaders' scripted answers.
// The runs that wait out timeouts or durations are in loss-and-duration.check.ts (bench:check).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/load/load-result.ts';
import { sampleHeaders } from '../../../bench/load/node-http.ts';
import { runLoad } from '../../../bench/load/run-load.ts';
import { wrkInstalled } from '../../../bench/load/wrk.ts';
import { tierVerdicts } from '../../../bench/probes/tier-verdicts.ts';
import { BODY, LARGE_BODY, type ScriptedServer, startScriptedServer } from './scripted-server.ts';

const wrk = await wrkInstalled();
let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server?.close();
});

describe.each([
  { tool: 'wrk 4.x', installed: wrk, headerBound: 400 },
  // wrk's bytes include the headers (about 150 bytes each from node:http), the Node generator's do not.
  { tool: 'node-http', installed: true, headerBound: 0 },
] as const)('a fixed count, 10 × 50, with $tool', ({ tool, installed, headerBound }) => {
  // Skipped only for wrk when it is not installed (a benchmark peer: bench/setup/peers/install.sh);
  // the node-http generator, which the benchmarks fall back to, always runs.
  it.skipIf(!installed)('sends exactly 500 requests and counts 500 answers, no errors', async () => {
    const servedBefore = server.served();
    const fixed: LoadResult = await runLoad({
      url: server.url,
      connections: 10,
      requests: 10 * 50,
      maxSeconds: 30,
      tool,
      bodyBytes: BODY.length,
    });
    expect(fixed.tool).toBe(tool);
    expect({ sent: fixed.sent, requests: fixed.requests, errors: fixed.errors, non2xx: fixed.non2xx }).toEqual({
      sent: 500,
      requests: 500,
      errors: 0,
      non2xx: 0,
    });
    expect(server.served() - servedBefore).toBe(500);
    // A closed loop: 10 connections busy for the run at most, so the mean is at most 10 × elapsed / 500.
    const busiest = (10 * fixed.elapsedSec * 1000) / 500;
    expect(fixed.latency.meanMs).toBeGreaterThan(0);
    expect(fixed.latency.meanMs).toBeLessThanOrEqual(busiest * 1.05);
    expect(fixed.bytes).toBeGreaterThanOrEqual(500 * BODY.length);
    expect(fixed.bytes).toBeLessThanOrEqual(500 * (BODY.length + headerBound));
  });
});

// wrk's own ways of counting; without wrk installed (bench/setup/peers/install.sh) the benchmarks
// do not use it either, so there is nothing of it to check.
describe.skipIf(!wrk)('wrk, a fixed count', () => {
  it('does not count connections the server closed while idle as answers (wrk counts them as read errors)', async () => {
    // Connections done with their share sit idle while the late answers wait, and the server
    // closes them: wrk reopens them (and counts a read error), which must not count as an answer.
    // Nine connections make one wrk thread (wrkThreads), which is still reading when the server
    // closes: a thread done with its share would stop reading and never see the close.
    const servedBefore = server.served();
    const staggered = await runLoad({
      url: server.at('/stagger'),
      connections: 9,
      requests: 50,
      maxSeconds: 30,
      tool: 'wrk 4.x',
      bodyBytes: BODY.length,
    });
    expect({ requests: staggered.requests, sent: staggered.sent, errors: staggered.errors }).toEqual({
      requests: 50,
      sent: 50,
      errors: 0,
    });
    expect(server.served() - servedBefore).toBe(50);
    expect(staggered.socketErrors ?? 0).toBeGreaterThan(0);
  });

  it.each([
    ['/redirect-small', BODY.length, "by wrk-load.lua's response() hook"],
    ['/redirect-large', LARGE_BODY.length, 'from the bytes read'],
  ] as const)('counts the 7 of 50 answered 302 at %s as non-2xx (%s)', async (path, bodyBytes, _how) => {
    server.resetCounts();
    const counted = await runLoad({
      url: server.at(path),
      connections: 10,
      requests: 50,
      maxSeconds: 30,
      tool: 'wrk 4.x',
      bodyBytes,
    });
    expect(counted.requests).toBe(50);
    expect(counted.non2xx).toBe(7);
  });
});

describe('tierVerdicts of sampleHeaders', () => {
  it("counts the edge's hits and forwards, the shield's on the edge's forwards only, and the Server-Timing means", async () => {
    const samples = await sampleHeaders(server.at('/tiers'), ['Cache-Status', 'Server-Timing'], 8);
    expect(samples).toHaveLength(8);
    expect(samples[0]).toEqual({
      status: 200,
      headers: { 'cache-status': 'tiercache-edge; hit; ttl=60', 'server-timing': 'edge;dur=1' },
    });
    const tiers = tierVerdicts(samples);
    expect(tiers.samples).toBe(8);
    expect(tiers.edge).toEqual({ hits: 2, forwards: 6, hitRatio: 0.25 });
    // The edge hits' responses carry no shield member; a quoted detail may hold ';'.
    expect({ hits: tiers.shield.hits, forwards: tiers.shield.forwards }).toEqual({ hits: 2, forwards: 4 });
    expect(tiers.timing.edge).toEqual({ meanMs: 1, count: 8 });
    expect(tiers.timing.shield).toEqual({ meanMs: 3, count: 6 });
    expect(tiers.timing.origin).toEqual({ meanMs: 10, count: 4 });
  });
});
