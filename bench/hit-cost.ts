// `npm run bench:hit-cost`: what one warm hit of a small object costs the runtime, counted as
// workerd CPU time per request (steadier than requests per second on a shared machine), for
// tiercache's edge answering from memory and from its Cache API namespace, and for the naive
// baselines (setup/peers/naive-worker.ts) on the same runtime; then a V8 profile of the edge's
// hot path, by function. wrk, c = 100, a 20 KB object, rounds interleaved. Writes
// bench/results/<timestamp>/hit-cost.{md,json}; docs/benchmarks.md, "Where the time goes", reads it.

import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { startWorkers } from '../local/workers.ts';
import { wrkInstalled } from './load/wrk.ts';
import { totalCpuSeconds } from './probes/process-cpu.ts';
import { processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { profileIsolate } from './probes/v8-profile.ts';
import { describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { median } from './report/statistics.ts';
import { freePort } from './setup/free-port.ts';
import { startNaiveWorkers } from './setup/peers/naive.ts';
import { startSiteOrigin } from './setup/site-origin.ts';

const run = promisify(execFile);
const OBJECT = { path: '/hit-20KB.bin', size: 20_000, seed: 0x4c17 };
const CONNECTIONS = 100;
const SECONDS = 3;
const ROUNDS = 3;
const PROFILE_LINES = 12;

interface Target {
  name: string;
  url: string;
  note: string;
}

interface Round {
  requests: number;
  reqPerSec: number;
  cpuUsPerRequest: number;
}

const startedAt = new Date();
const cleanups: (() => Promise<void>)[] = [];
try {
  if (!(await wrkInstalled())) throw new Error('wrk is not installed: bash bench/setup/peers/install.sh');
  const origin = await startSiteOrigin([OBJECT]);
  cleanups.push(origin.close);
  const config = { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, DEFAULT_TTL: '3600', SHIELD_TOKEN: randomUUID() };
  const memory = await startWorkers({ config });
  cleanups.push(memory.dispose);
  const cacheApi = await startWorkers({ config: { ...config, MEMORY_CACHE_SIZE: '0' } });
  cleanups.push(cacheApi.dispose);
  const naive = await startNaiveWorkers({ origin: origin.url });
  cleanups.push(naive.stop);
  const targets: Target[] = [
    { name: 'tiercache, edge memory hit', url: `${memory.url}${OBJECT.path}`, note: 'worker/memory-hit.ts' },
    { name: 'tiercache, edge Cache API hit', url: `${cacheApi.url}${OBJECT.path}`, note: 'MEMORY_CACHE_SIZE=0' },
    { name: 'naive-map', url: `${naive.mapUrl}${OBJECT.path}`, note: 'a global Map' },
    { name: 'naive-cache', url: `${naive.cacheUrl}${OBJECT.path}`, note: 'caches.default' },
  ];
  // Two GETs each: the first fills, the second is the hit that puts the object in memory.
  for (const target of targets)
    for (let i = 0; i < 3; i++) await fetch(target.url).then((answer) => answer.arrayBuffer());

  const runtimes = processesNamed(process.pid, RUNTIME_NAME);
  const rounds = new Map<string, Round[]>(targets.map((target) => [target.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) {
      const before = totalCpuSeconds(runtimes);
      const { requests, reqPerSec } = await wrk(target.url);
      const cpu = totalCpuSeconds(runtimes) - before;
      rounds.get(target.name)?.push({ requests, reqPerSec, cpuUsPerRequest: (cpu * 1e6) / requests });
      process.stderr.write(
        `round ${round + 1}/${ROUNDS} ${target.name}: ${reqPerSec.toFixed(0)} req/s, ${((cpu * 1e6) / requests).toFixed(1)} µs CPU per request\n`,
      );
    }
  }

  // The profile runs in a stack of its own: the inspector slows what it watches.
  const inspectorPort = await freePort();
  const profiled = await startWorkers({ config, inspectorPort });
  cleanups.push(profiled.dispose);
  const profiledUrl = `${profiled.url}${OBJECT.path}`;
  for (let i = 0; i < 3; i++) await fetch(profiledUrl).then((answer) => answer.arrayBuffer());
  let profiledRequests = 0;
  const lines = await profileIsolate(`ws://127.0.0.1:${inspectorPort}/core:user:edge`, async () => {
    profiledRequests = (await wrk(profiledUrl)).requests;
  });

  const summary = targets.map((target) => {
    const measured = rounds.get(target.name) ?? [];
    return {
      ...target,
      cpuUsPerRequest: median(measured.map((r) => r.cpuUsPerRequest)),
      reqPerSec: median(measured.map((r) => r.reqPerSec)),
      rounds: measured,
    };
  });
  const map = summary.find((s) => s.name === 'naive-map');
  const table = formatTable({
    columns: ['target', 'workerd CPU µs / request', 'req/s', '× naive-map CPU', 'what'],
    rows: summary.map((s) => [
      s.name,
      s.cpuUsPerRequest.toFixed(1),
      s.reqPerSec.toFixed(0),
      map ? (s.cpuUsPerRequest / map.cpuUsPerRequest).toFixed(2) : '–',
      s.note,
    ]),
  });
  const totalUs = lines.reduce((sum, line) => sum + line.selfUs, 0);
  const profileTable = formatTable({
    columns: ['frame (self time)', 'µs / request', 'share'],
    rows: lines
      .slice(0, PROFILE_LINES)
      .map((line) => [
        line.frame,
        (line.selfUs / profiledRequests).toFixed(2),
        `${((100 * line.selfUs) / totalUs).toFixed(0)} %`,
      ]),
  });
  const ours = lines.filter((line) => / index\.js:\d+$/.test(line.frame)).reduce((sum, line) => sum + line.selfUs, 0);
  const markdown = [
    '# What a warm hit of a small object costs',
    '',
    `wrk, ${CONNECTIONS} connections, ${SECONDS} s × ${ROUNDS} rounds interleaved, one ${OBJECT.size / 1000} KB object; medians. CPU is workerd's user + system time (every workerd this run started) over the requests answered.`,
    '',
    table,
    '',
    `## The edge's hot path, profiled (V8 sampling profiler, ${profiledRequests} requests)`,
    '',
    `JavaScript of tiercache's own bundle: ${(ours / profiledRequests).toFixed(1)} µs per request of the ${(totalUs / profiledRequests).toFixed(1)} µs sampled in the isolate (the rest: the runtime's own code, idle time between requests).`,
    '',
    profileTable,
    '',
    `Machine: ${describeMachine(machine())}.`,
  ].join('\n');
  process.stdout.write(`${markdown}\n`);
  const paths = await writeResults(
    'hit-cost',
    startedAt,
    {
      startedAt: startedAt.toISOString(),
      object: OBJECT,
      connections: CONNECTIONS,
      seconds: SECONDS,
      targets: summary,
      profile: { requests: profiledRequests, lines: lines.slice(0, 40) },
      machine: machine(),
    },
    markdown,
  );
  process.stderr.write(`wrote ${paths.join(', ')}\n`);
} catch (error) {
  process.stderr.write(
    `bench:hit-cost failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

async function wrk(url: string): Promise<{ requests: number; reqPerSec: number }> {
  const { stdout } = await run('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, url], {
    timeout: (SECONDS + 30) * 1000,
  });
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const reqPerSec = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  if (/Non-2xx/.test(stdout) || !(requests > 0)) throw new Error(`wrk against ${url} got errors:\n${stdout}`);
  return { requests, reqPerSec };
}
