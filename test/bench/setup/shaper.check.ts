// Does the shaper (bench/setup/shaper.ts) shape? A loopback origin answering N bytes, a shaper
// per origin profile in front (both in a child process, shaped-origin.ts, so that this one only
// measures), and the time to first byte and download rate they yield: for one connection (two
// requests kept alive) and for 4 connections in parallel (each capped on its own). The machine is
// shared, so only what no load can cause is asserted: no answer before the profile's latency and
// no connection above its bandwidth (each within 20 %), every byte delivered, every connection
// and request counted by the shaper. The printed table says PASS where a row is within 20 % of
// the profile both ways, SHORT otherwise. TTFB counts from the request on an open connection:
// the shaper adds no handshake round trip, so the connect column is loopback's own.
//
//   SHAPER_PROFILES="sg 80,25e6" npm run bench:check   (default: sf ams sg; or "latency,bandwidth")
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMachine, formatTable, machine } from '../../../bench/report/results.ts';
import { mean } from '../../../bench/report/statistics.ts';
import { withTimeout } from '../../../bench/setup/local-stack.ts';
import { ORIGIN_PROFILES, type OriginProfile, parseProfile } from '../../../bench/setup/origin-profiles.ts';
import type { FromServe, ToServe } from './shaped-origin.ts';

/** Bodies last about this long at the profile's rate: long enough that one burst is noise. */
const TRANSFER_SECONDS = 0.5;
const PARALLEL_CONNECTIONS = 4;
const TOLERANCE = 0.2;
const REQUEST_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 60_000;
const SERVER = fileURLToPath(new URL('./shaped-origin.ts', import.meta.url));

interface Measurement {
  /** Opening a new connection (0 on a kept-alive one): loopback's, the shaper adds no handshake delay. */
  connectMs: number;
  /** From the request's first byte on an open connection to the response head. */
  ttfbMs: number;
  bytesPerSec: number;
}

const profileTexts = process.env.SHAPER_PROFILES?.trim().split(/\s+/) ?? Object.keys(ORIGIN_PROFILES);
const profiles = profileTexts.map(parseProfile);
const rows: string[][] = [];
let child: ChildProcess;
let ready: Extract<FromServe, { kind: 'ready' }>;

beforeAll(async () => {
  child = fork(
    SERVER,
    profiles.map((p) => `${p.firstByteLatencyMs},${p.bandwidthBytesPerSec}`),
    { execArgv: ['--disable-warning=ExperimentalWarning'] },
  );
  const first = await withTimeout(nextMessage(child), START_TIMEOUT_MS, 'starting the origin and shapers');
  if (first.kind !== 'ready') throw new Error(`expected the serving process to be ready, got ${JSON.stringify(first)}`);
  ready = first;
  const direct = await measure(new Agent({ keepAlive: true }), ready.origin, 32e6);
  rows.push([
    'none (direct)',
    '1 connection',
    ms(direct.connectMs),
    ms(direct.ttfbMs),
    '',
    rate(direct.bytesPerSec),
    '',
    '',
  ]);
});

afterAll(() => {
  child?.kill();
  console.log(`Shaper check (origin and shapers in a child process): ${describeMachine(machine())}\n`);
  console.log(
    formatTable({
      columns: [
        'profile',
        'case',
        'connect ms',
        'TTFB ms',
        'target ms',
        'MB/s per connection',
        'target MB/s',
        'verdict',
      ],
      rows,
    }),
  );
});

describe.each(profiles.map((profile, index) => ({ profile, index, name: profile.name })))(
  'the shaper at profile $name',
  ({ profile, index }) => {
    it('answers no sooner than its latency, sends no faster than its bandwidth, and counts every connection and request', async () => {
      const shaperUrl = ready.shapers[index] ?? '';
      const bytes = Math.round(profile.bandwidthBytesPerSec * TRANSFER_SECONDS);
      // A first request warms both processes' code paths; it is not in the table.
      const warmUp = new Agent({ keepAlive: false });
      await measure(warmUp, shaperUrl, 1000);
      const single = new Agent({ keepAlive: true, maxSockets: 1 });
      const first = await measure(single, shaperUrl, bytes);
      const second = await measure(single, shaperUrl, bytes);
      single.destroy();
      const parallelAgent = new Agent({ keepAlive: true, maxSockets: PARALLEL_CONNECTIONS });
      const parallel = await Promise.all(
        Array.from({ length: PARALLEL_CONNECTIONS }, () => measure(parallelAgent, shaperUrl, bytes)),
      );
      parallelAgent.destroy();
      const cases: [string, Measurement[]][] = [
        ['1 connection, request 1', [first]],
        ['1 connection, request 2 (kept alive)', [second]],
        [`${PARALLEL_CONNECTIONS} connections, mean (min–max)`, parallel],
      ];
      rows.push(...cases.map(([name, measurements]) => row(profile, name, measurements)));
      child.send({ kind: 'stats', index } satisfies ToServe);
      const answer = await withTimeout(nextMessage(child), REQUEST_TIMEOUT_MS, 'shaper stats');
      const stats = answer.kind === 'stats' ? answer.stats : undefined;
      if (stats)
        rows.push([
          profile.name,
          `shaper: ${stats.connections} connections, ${stats.requests} requests, ${(stats.bytesToClient / 1e6).toFixed(1)} MB to clients`,
          '',
          '',
          '',
          '',
          '',
          '',
        ]);

      for (const m of [first, second, ...parallel]) {
        expect(m.ttfbMs).toBeGreaterThanOrEqual((1 - TOLERANCE) * profile.firstByteLatencyMs);
        expect(m.bytesPerSec).toBeLessThanOrEqual((1 + TOLERANCE) * profile.bandwidthBytesPerSec);
      }
      // The warm-up, the kept-alive pair and the parallel four.
      expect(stats).toMatchObject({
        connections: 1 + 1 + PARALLEL_CONNECTIONS,
        requests: 1 + 2 + PARALLEL_CONNECTIONS,
      });
      expect(stats?.bytesToClient).toBeGreaterThanOrEqual(1000 + (2 + PARALLEL_CONNECTIONS) * bytes);
    });
  },
);

function nextMessage(from: ChildProcess): Promise<FromServe> {
  return new Promise((resolve, reject) => {
    from.once('message', (message) => resolve(message as FromServe));
    from.once('exit', (code) => reject(new Error(`the serving process exited (code ${code})`)));
  });
}

function row(profile: OriginProfile, name: string, measurements: Measurement[]): string[] {
  const ttfbs = measurements.map((m) => m.ttfbMs);
  const rates = measurements.map((m) => m.bytesPerSec);
  const within = (value: number, target: number) => Math.abs(value - target) <= TOLERANCE * target;
  const pass =
    ttfbs.every((t) => within(t, profile.firstByteLatencyMs)) &&
    rates.every((r) => within(r, profile.bandwidthBytesPerSec));
  return [
    profile.name,
    name,
    spread(
      measurements.map((m) => m.connectMs),
      ms,
    ),
    spread(ttfbs, ms),
    ms(profile.firstByteLatencyMs),
    spread(rates, rate),
    rate(profile.bandwidthBytesPerSec),
    pass ? 'PASS' : 'SHORT',
  ];
}

/**
 * One GET of `bytes` through `agent`: ms to connect, from sending to the response head, and the body's rate after that.
 */
function measure(agent: Agent, base: string, bytes: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const calledAt = performance.now();
    let startedAt = calledAt;
    const req = request(`${base}/?bytes=${bytes}`, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const firstByteAt = performance.now();
      let received = 0;
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      res.on('error', reject);
      res.on('end', () => {
        const seconds = (performance.now() - firstByteAt) / 1000;
        if (received !== bytes) reject(new Error(`expected ${bytes} bytes, received ${received}`));
        else
          resolve({
            connectMs: startedAt - calledAt,
            ttfbMs: firstByteAt - startedAt,
            bytesPerSec: received / seconds,
          });
      });
    });
    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => (startedAt = performance.now()));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

function spread(values: number[], format: (value: number) => string): string {
  const average = mean(values);
  return values.length === 1
    ? format(average)
    : `${format(average)} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
}

function ms(value: number): string {
  return value.toFixed(1);
}

function rate(bytesPerSec: number): string {
  return (bytesPerSec / 1e6).toFixed(1);
}
