// Does the shaper shape? A loopback HTTP server answering N bytes, the shaper in front, and
// the time to first byte and download rate it yields: for one connection (two requests kept
// alive), and for 4 connections in parallel (each capped on its own). A row PASSes when both
// are within 20% of the profile; SHORT otherwise. A bench, not a test: the machine is shared.
// The origin and the shapers run in a child process, so this one only measures. TTFB counts
// from the request on an open connection: the shaper adds no handshake round trip, so the
// connect column is loopback's (and a busy machine's) own.
//
//   node bench/shaper-check.ts [profile ...]     (default: sf ams sg; or "latency,bandwidth")
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describeError, describeMachine, formatTable, machine } from './report.ts';
import { withTimeout } from './local-stack.ts';
import { ORIGIN_PROFILES, type OriginProfile, parseProfile, shaperOptions } from './origin-profiles.ts';
import { type ShaperStats, startShaper } from './shaper.ts';

/** Bodies last about this long at the profile's rate: long enough that one burst is noise. */
const TRANSFER_SECONDS = 0.5;
const PARALLEL_CONNECTIONS = 4;
const TOLERANCE = 0.2;
const REQUEST_TIMEOUT_MS = 30_000;
const RUN_TIMEOUT_MS = 180_000;
const MAX_BODY_BYTES = 64e6;

const SERVE_FLAG = '--serve';

type ToServe = { kind: 'stats'; index: number };
type FromServe = { kind: 'ready'; origin: string; shapers: string[] } | { kind: 'stats'; stats: ShaperStats | undefined };

interface Measurement {
  /** Opening a new connection (0 on a kept-alive one): loopback's, the shaper adds no handshake delay. */
  connectMs: number;
  /** From the request's first byte on an open connection to the response head. */
  ttfbMs: number;
  bytesPerSec: number;
}

const profileTexts = process.argv.slice(2).filter((arg) => arg !== SERVE_FLAG);
const profiles = (profileTexts.length > 0 ? profileTexts : Object.keys(ORIGIN_PROFILES)).map(parseProfile);

if (process.argv.includes(SERVE_FLAG)) await serve(profiles);
else await check(profiles);

/** The measuring side: this process only sends requests and reads answers. */
async function check(profiles: OriginProfile[]): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [SERVE_FLAG, ...profiles.map((p) => `${p.firstByteLatencyMs},${p.bandwidthBytesPerSec}`)], { execArgv: process.execArgv });
  try {
    const ready = await withTimeout(nextMessage(child), RUN_TIMEOUT_MS, 'starting the origin and shapers');
    if (ready.kind !== 'ready') throw new Error(`expected the serving process to be ready, got ${JSON.stringify(ready)}`);
    const rows: string[][] = [];
    const direct = await measure(new Agent({ keepAlive: true }), ready.origin, 32e6);
    rows.push(['none (direct)', '1 connection', ms(direct.connectMs), ms(direct.ttfbMs), '', rate(direct.bytesPerSec), '', '']);
    for (const [i, profile] of profiles.entries()) {
      rows.push(...(await withTimeout(checkProfile(ready.shapers[i] ?? '', profile), RUN_TIMEOUT_MS, `profile ${profile.name}`)));
      child.send({ kind: 'stats', index: i });
      const answer = await withTimeout(nextMessage(child), RUN_TIMEOUT_MS, 'shaper stats');
      if (answer.kind === 'stats' && answer.stats) rows.push([profile.name, `shaper: ${answer.stats.connections} connections, ${answer.stats.requests} requests, ${(answer.stats.bytesToClient / 1e6).toFixed(1)} MB to clients`, '', '', '', '', '', '']);
    }
    console.log(`Shaper check (origin and shapers in a child process): ${describeMachine(machine())}\n`);
    console.log(formatTable({ columns: ['profile', 'case', 'connect ms', 'TTFB ms', 'target ms', 'MB/s per connection', 'target MB/s', 'verdict'], rows }));
  } catch (error) {
    console.error(`shaper check failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    child.kill();
  }
}

/** The serving side: the origin answering `?bytes=N`, one shaper per profile in front of it. */
async function serve(profiles: OriginProfile[]): Promise<void> {
  const body = Buffer.alloc(MAX_BODY_BYTES, 0x61);
  const server = createServer((req, res) => {
    const bytes = Math.min(MAX_BODY_BYTES, Number(new URL(req.url ?? '/', 'http://origin').searchParams.get('bytes') ?? 0));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes });
    res.end(body.subarray(0, bytes));
  });
  const origin = await listen(server);
  const shapers = await Promise.all(profiles.map((profile) => startShaper(shaperOptions(profile, origin))));
  const stop = async () => {
    await Promise.all(shapers.map((shaper) => shaper.close()));
    server.closeAllConnections();
    server.close();
    process.disconnect?.();
  };
  setTimeout(() => void stop(), RUN_TIMEOUT_MS).unref();
  process.on('disconnect', () => void stop());
  process.on('message', (message: ToServe) => process.send?.({ kind: 'stats', stats: shapers[message.index]?.stats() } satisfies FromServe));
  process.send?.({ kind: 'ready', origin, shapers: shapers.map((shaper) => shaper.url) } satisfies FromServe);
}

async function checkProfile(shaperUrl: string, profile: OriginProfile): Promise<string[][]> {
  const bytes = Math.round(profile.bandwidthBytesPerSec * TRANSFER_SECONDS);
  // A first request warms both processes' code paths; it is not in the table.
  const warmUp = new Agent({ keepAlive: false });
  await measure(warmUp, shaperUrl, 1000);
  const single = new Agent({ keepAlive: true, maxSockets: 1 });
  const first = await measure(single, shaperUrl, bytes);
  const second = await measure(single, shaperUrl, bytes);
  single.destroy();
  const parallelAgent = new Agent({ keepAlive: true, maxSockets: PARALLEL_CONNECTIONS });
  const parallel = await Promise.all(Array.from({ length: PARALLEL_CONNECTIONS }, () => measure(parallelAgent, shaperUrl, bytes)));
  parallelAgent.destroy();
  const cases: [string, Measurement[]][] = [
    ['1 connection, request 1', [first]],
    ['1 connection, request 2 (kept alive)', [second]],
    [`${PARALLEL_CONNECTIONS} connections, mean (min–max)`, parallel],
  ];
  return cases.map(([name, measurements]) => row(profile, name, measurements));
}

function nextMessage(child: ChildProcess): Promise<FromServe> {
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as FromServe));
    child.once('exit', (code) => reject(new Error(`the serving process exited (code ${code})`)));
  });
}

function row(profile: OriginProfile, name: string, measurements: Measurement[]): string[] {
  const ttfbs = measurements.map((m) => m.ttfbMs);
  const rates = measurements.map((m) => m.bytesPerSec);
  const within = (value: number, target: number) => Math.abs(value - target) <= TOLERANCE * target;
  const pass = ttfbs.every((t) => within(t, profile.firstByteLatencyMs)) && rates.every((r) => within(r, profile.bandwidthBytesPerSec));
  return [profile.name, name, spread(measurements.map((m) => m.connectMs), ms), spread(ttfbs, ms), ms(profile.firstByteLatencyMs), spread(rates, rate), rate(profile.bandwidthBytesPerSec), pass ? 'PASS' : 'SHORT'];
}

/** One GET of `bytes` through `agent`: ms to connect, from sending to the response head, and the body's rate after that. */
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
        else resolve({ connectMs: startedAt - calledAt, ttfbMs: firstByteAt - startedAt, bytesPerSec: received / seconds });
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
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return values.length === 1 ? format(mean) : `${format(mean)} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
}

function ms(value: number): string {
  return value.toFixed(1);
}

function rate(bytesPerSec: number): string {
  return (bytesPerSec / 1e6).toFixed(1);
}

function listen(s: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
  });
}
