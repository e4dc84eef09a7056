// `npm run bench:byte-cost`: workerd CPU time (user + system, from /proc) per request and per MiB, cold and warm,
// whole and sliced: the measured inputs of the cost model (shared/cost/measured-cpu.ts, docs/costs.md).

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorkers } from '../local/workers.ts';
import { totalCpuSeconds } from './probes/process-cpu.ts';
import { processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { median } from './report/statistics.ts';
import { type BenchObject, startSiteOrigin } from './setup/site-origin.ts';

const MIB = 1024 * 1024;
const SLICE = 8 * MIB;
/** Work the tiers leave running after a response (stores, read-ahead copies) is counted with it. */
const SETTLE_MS = 1_500;
const ROUNDS = 3;

/** Each phase runs this many times, interleaved (cold ones on objects of their own); medians are reported. */
const REPETITIONS = 3;

/** Each set of objects: one per repetition, so that every cold phase asks for objects never asked for before. */
const small = Array.from({ length: REPETITIONS }, (_, r) => objects(`small${r}`, 200, 20_000, 0x5a11 + r * 1000));
const whole = Array.from({ length: REPETITIONS }, (_, r) => objects(`whole${r}`, 100, 1_000_000, 0x0e1e + r * 1000));
const sliced = Array.from({ length: REPETITIONS }, (_, r) => objects(`sliced${r}`, 2, 64 * MIB, 0x511c + r * 1000));

interface Get {
  path: string;
  range?: [number, number];
}

interface Phase {
  name: string;
  what: string;
  requests: number;
  mib: number;
  cpuSeconds: number;
}

/** What a phase's medians say. */
interface PhaseSummary {
  name: string;
  what: string;
  requests: number;
  mib: number;
  /** Medians over the repetitions. */
  cpuMsPerRequest: number;
  cpuMsPerMib: number;
  repetitions: Phase[];
}

const startedAt = new Date();
const cleanups: (() => Promise<void>)[] = [];
try {
  const origin = await startSiteOrigin([...small, ...whole, ...sliced].flat());
  cleanups.push(origin.close);
  // The memory layer off: warm hits are the edge's Cache API (a memory hit is bench:hit-cost's).
  const stack = await startWorkers({
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: origin.url,
      DEFAULT_TTL: '3600',
      SHIELD_TOKEN: randomUUID(),
      MEMORY_CACHE_SIZE: '0',
      LOG_SAMPLE: '0',
    },
  });
  cleanups.push(stack.dispose);
  // Both tiers and the local Cache API simulator share one workerd process here, so a cold figure is both tiers' work
  // together.
  const runtimes = processesNamed(process.pid, RUNTIME_NAME);
  const measure = async (name: string, what: string, gets: readonly Get[]): Promise<Phase> => {
    await sleep(SETTLE_MS);
    const before = totalCpuSeconds(runtimes);
    let bytes = 0;
    for (const get of gets) bytes += await fetchBody(`${stack.url}${get.path}`, get.range);
    await sleep(SETTLE_MS);
    const phase = {
      name,
      what,
      requests: gets.length,
      mib: bytes / MIB,
      cpuSeconds: totalCpuSeconds(runtimes) - before,
    };
    process.stderr.write(
      `${name}: ${phase.requests} GETs, ${phase.mib.toFixed(1)} MiB, ${(phase.cpuSeconds * 1000).toFixed(0)} ms of workerd CPU\n`,
    );
    return phase;
  };
  const measured: Phase[][] = [];
  for (let r = 0; r < REPETITIONS; r++) {
    const [smallSet = [], wholeSet = [], slicedSet = []] = [small[r], whole[r], sliced[r]];
    const ranges: Get[] = slicedSet.flatMap((object) =>
      Array.from({ length: object.size / SLICE }, (_, i) => ({
        path: object.path,
        range: [i * SLICE, (i + 1) * SLICE - 1] as [number, number],
      })),
    );
    // Sequential GETs of objects never asked for before (cold: origin → shield → edge → client) and again (warm: the
    // edge's Cache API); small and 1 MB objects cached whole, 64 MiB objects as 8 MiB slices (whole GETs cold, then
    // 8 MiB ranges of them warm).
    measured.push([
      await measure('idle', 'no GETs: the settle windows alone', []),
      await measure('cold 20 KB', 'whole, origin → shield → edge', smallSet),
      await measure('warm 20 KB', "the edge's Cache API", repeat(smallSet, ROUNDS)),
      await measure('cold 1 MB', 'whole, origin → shield → edge', wholeSet),
      await measure('warm 1 MB', "the edge's Cache API", repeat(wholeSet, ROUNDS)),
      await measure('cold 64 MiB', '8 MiB slices read ahead, whole GETs', slicedSet),
      await measure('warm 8 MiB ranges', "one slice each, from the edge's Cache API", repeat(ranges, ROUNDS)),
    ]);
  }
  const phases: PhaseSummary[] = (measured[0] ?? []).map((first, i) => {
    const repetitions = measured.map((run) => run[i]).filter((phase) => phase !== undefined);
    return {
      name: first.name,
      what: first.what,
      requests: first.requests,
      mib: first.mib,
      cpuMsPerRequest: median(
        repetitions.map((phase) =>
          phase.requests > 0 ? (phase.cpuSeconds * 1000) / phase.requests : phase.cpuSeconds * 1000,
        ),
      ),
      cpuMsPerMib: median(repetitions.map((phase) => (phase.mib > 0 ? (phase.cpuSeconds * 1000) / phase.mib : 0))),
      repetitions,
    };
  });
  const of = (name: string): PhaseSummary => {
    const phase = phases.find((p) => p.name === name);
    if (phase === undefined) throw new Error(`no phase ${name}`);
    return phase;
  };
  // A request's own cost and its bytes', from two sizes of the same kind: (big − small) per MiB between them.
  const perMib = (big: PhaseSummary, little: PhaseSummary): number =>
    (big.cpuMsPerRequest - little.cpuMsPerRequest) / (big.mib / big.requests - little.mib / little.requests);
  const derived = {
    coldRequestMs: of('cold 20 KB').cpuMsPerRequest,
    warmRequestMs: of('warm 20 KB').cpuMsPerRequest,
    coldWholeMsPerMib: perMib(of('cold 1 MB'), of('cold 20 KB')),
    warmWholeMsPerMib: perMib(of('warm 1 MB'), of('warm 20 KB')),
    coldSlicedMsPerMib: of('cold 64 MiB').cpuMsPerMib,
    warmSliceMsPerMib: of('warm 8 MiB ranges').cpuMsPerMib,
  };
  const rows = phases.map((phase) => [
    phase.name,
    phase.what,
    String(phase.requests),
    phase.mib.toFixed(1),
    phase.requests > 0 ? phase.cpuMsPerRequest.toFixed(3) : `${phase.cpuMsPerRequest.toFixed(0)} in all`,
    phase.mib >= 1 ? phase.cpuMsPerMib.toFixed(3) : '–',
    phase.repetitions.map((p) => (p.cpuSeconds * 1000).toFixed(0)).join(', '),
  ]);
  const markdown = [
    '# What a request and its bytes cost the runtime',
    '',
    `Sequential GETs on loopback, both tiers on one workerd (Miniflare, direct sockets, the memory layer off, no log lines), a static origin (ORIGIN_KIND=http). CPU is workerd's user + system time from ${SETTLE_MS / 1000} s before a phase's first GET to ${SETTLE_MS / 1000} s after its last (the stores and copies a response leaves running included), over the phase's GETs and MiB received. Warm phases are ${ROUNDS} rounds over the same objects; each phase ran ${REPETITIONS} times, interleaved, cold ones on objects of their own: medians.`,
    '',
    formatTable({
      columns: ['phase', 'what', 'GETs', 'MiB', 'workerd CPU ms / GET', 'workerd CPU ms / MiB', 'each run, ms in all'],
      rows,
    }),
    '',
    '## What the cost model takes from it (shared/cost/measured-cpu.ts)',
    '',
    formatTable({
      columns: ['measure', 'workerd CPU ms', 'from'],
      rows: [
        [
          'a cold request of its own (both tiers, origin fetch, both stores)',
          derived.coldRequestMs.toFixed(3),
          'cold 20 KB per GET',
        ],
        ["a warm request of its own (the edge's Cache API)", derived.warmRequestMs.toFixed(3), 'warm 20 KB per GET'],
        [
          'per MiB cold, cached whole',
          derived.coldWholeMsPerMib.toFixed(3),
          '(cold 1 MB − cold 20 KB) per MiB between them',
        ],
        [
          'per MiB warm, cached whole',
          derived.warmWholeMsPerMib.toFixed(3),
          '(warm 1 MB − warm 20 KB) per MiB between them',
        ],
        [
          'per MiB cold, sliced (slice requests included)',
          derived.coldSlicedMsPerMib.toFixed(3),
          'cold 64 MiB per MiB',
        ],
        [
          'per MiB warm, a slice (its request included)',
          derived.warmSliceMsPerMib.toFixed(3),
          'warm 8 MiB ranges per MiB',
        ],
      ],
    }),
    '',
    `Machine: ${describeMachine(machine())}.`,
  ].join('\n');
  process.stdout.write(`${markdown}\n`);
  const paths = await writeResults(
    'byte-cost',
    startedAt,
    {
      startedAt: startedAt.toISOString(),
      sliceBytes: SLICE,
      settleMs: SETTLE_MS,
      rounds: ROUNDS,
      repetitions: REPETITIONS,
      phases,
      derived,
      machine: machine(),
    },
    markdown,
  );
  process.stderr.write(`wrote ${paths.join(', ')}\n`);
} catch (error) {
  process.stderr.write(
    `bench:byte-cost failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

function objects(name: string, count: number, size: number, seed: number): BenchObject[] {
  return Array.from({ length: count }, (_, i) => ({ path: `/${name}-${i}.bin`, size, seed: seed + i }));
}

function repeat<T>(items: readonly T[], rounds: number): T[] {
  return Array.from({ length: rounds }, () => items).flat();
}

/**
 * GETs `url` (one range when given), reads the body whole and answers its length; anything but 200/206 of the length
 * asked for fails.
 */
async function fetchBody(url: string, range?: [number, number]): Promise<number> {
  const answer = await fetch(url, range === undefined ? {} : { headers: { range: `bytes=${range[0]}-${range[1]}` } });
  const body = await answer.arrayBuffer();
  const expected = range === undefined ? Number(answer.headers.get('content-length')) : range[1] - range[0] + 1;
  if (answer.status !== (range === undefined ? 200 : 206) || body.byteLength !== expected)
    throw new Error(`${url}: ${answer.status}, ${body.byteLength} bytes`);
  return body.byteLength;
}
