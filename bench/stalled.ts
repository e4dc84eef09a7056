// `npm run bench:stalled` (`-- --at edge` for the edge in the shield's process): what ten clients that stopped reading
// cost a cold download through both tiers, as `npm start` runs them in front of the shaped origin, at the stack's second
// location by default (the tiers in processes of their own: an edge in its workerd, the shield in another). Writes
// bench/results/<ts>/stalled.*.

import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startWorkers } from '../local/workers.ts';
import { parseServerTiming } from '../shared/http/server-timing.ts';
import { timedGet } from './load/timed-get.ts';
import { totalCpuSeconds } from './probes/process-cpu.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { medianRuntimeBytes, startSampler } from './probes/rss-sampler.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { median } from './report/statistics.ts';
import { startOriginThread } from './setup/origin-thread.ts';
import type { BenchObject } from './setup/site-origin.ts';

const MIB = 2 ** 20;
const MB = 1e6;
const DOWNLOAD_BYTES = 64 * MIB;
const STALLED_BYTES = 24 * MIB;
/** Each stalled reader reads a cold large object of its own, its connection left open. */
const STALLED_READERS = 10;
/** Each stalled reader takes this much of its object, then stops reading. */
const READ_BEFORE_STALL = MB;
/** Each download is timed alone and with readers stalled, in alternating rounds: the ratio is taken within one run. */
const ROUNDS = 3;
/**
 * At least this share of the unloaded throughput, once the readers are stalled (what they started on their way in,
 * their first slices and read-ahead, has gone into the store).
 */
const TARGET_RATIO = 0.9;
/** At most this multiple of the first byte alone, for the download started the moment the readers stall. */
const TARGET_FIRST_BYTE = 2;
const GET_TIMEOUT_MS = 120_000;
const STALL_TIMEOUT_MS = 30_000;
/** Runtime CPU below this share of a core, over half a second, counts as idle. */
const IDLE_CPU_SHARE = 0.1;

/**
 * 'as 10 stall' is the download started the moment they stall: what those fills of theirs cost while they run (on this
 * runtime one thread serves both tiers and the cache).
 */
type Phase = 'alone' | 'with 10 stalled' | 'as 10 stall';

interface Download {
  round: number;
  phase: Phase;
  mibPerSec: number;
  ttfbMs: number;
  /**
   * When the edge sent its head (its own Server-Timing `edge` metric, ms from the request): beside the first byte, it
   * says whether the wait was the tiers' decision or the body's way through a busy runtime.
   */
  edgeHeadMs: number | undefined;
  complete: boolean;
}

const { values } = parseArgs({ options: { at: { type: 'string', default: 'location' } } });
if (values.at !== 'location' && values.at !== 'edge') throw new Error(`--at takes location or edge, not ${values.at}`);
/**
 * `location`: the stack's second location (local/location.ts), an edge in a workerd process of its own reaching the
 * shield's process across its SHIELD binding (the tiers in processes of their own); `edge`: the edge in the shield's own workerd.
 */
const AT: 'location' | 'edge' = values.at;

await main();

async function main(): Promise<void> {
  const startedAt = new Date();
  const stops: (() => Promise<void>)[] = [];
  try {
    const phases: Phase[] = ['alone', 'with 10 stalled', 'as 10 stall'];
    console.log(
      `writing ${phases.length * ROUNDS} × ${DOWNLOAD_BYTES / MIB} MiB and ${2 * ROUNDS * STALLED_READERS} × ${STALLED_BYTES / MIB} MiB …`,
    );
    const objects: BenchObject[] = [];
    const object = (size: number): string => {
      const path = `/stalled-${objects.length + 1}.bin`;
      objects.push({ path, size, seed: 0x5a11 + objects.length });
      return path.slice(1);
    };
    const plan = Array.from({ length: ROUNDS }, () =>
      phases.map((phase) => ({
        phase,
        download: object(DOWNLOAD_BYTES),
        stalled: phase === 'alone' ? [] : Array.from({ length: STALLED_READERS }, () => object(STALLED_BYTES)),
      })),
    );
    // The origin and its shaper on a thread of their own, as a remote origin is a machine of its own: on this
    // process's thread, beside the clients, eleven cold fills at 25 MB/s each kept its event loop so busy that the
    // shield waited 1.2 to 2.2 s for a new download's head (its Server-Timing `origin` metric), which measured this
    // process, not the tiers.
    const originThread = await startOriginThread(objects);
    stops.push(() => originThread.origin.close());
    // The shaper's defaults: 80 ms first byte, 25 MB/s per connection, as `npm run bench`.
    const shaper = await originThread.startShaper({ target: originThread.origin.url });
    stops.push(() => shaper.close());
    const config = { ORIGIN_KIND: 'http', ORIGIN_URL: shaper.url, SHIELD_TOKEN: randomUUID() };
    const stack = await startWorkers({ config, port: 0, secondLocation: AT === 'location' });
    stops.push(() => stack.dispose());
    const base = AT === 'location' ? stack.secondLocationUrl : stack.url;
    if (base === undefined) throw new Error('the stack started no second location');
    // The runtime's resident memory is sampled throughout.
    const pids = procAvailable() ? processesNamed(process.pid, RUNTIME_NAME) : [];
    const baseline = pids.length > 0 ? startSampler(pids, 100, 50) : undefined;
    await delay(1000);
    const baselineBytes = baseline === undefined ? 0 : medianRuntimeBytes(baseline.stop());
    const sampler = pids.length > 0 ? startSampler(pids, 100, 20_000) : undefined;
    // Idle: no byte from the origin, and the runtime (both tiers, the cache) all but idle, so
    // that fills still running between the tiers (the shield's store to the edge's) are done too.
    const idle = { origin: () => shaper.stats().bytesToClient, runtimeCpu: () => totalCpuSeconds(pids) };

    const downloads: Download[] = [];
    for (const [round, cells] of plan.entries()) {
      for (const cell of cells) {
        const readers = await Promise.all(cell.stalled.map((key) => stalledReader(base, key)));
        try {
          // Stalled: what they started on the way in has gone into the store, at both tiers.
          if (cell.phase === 'with 10 stalled') await quiet(idle);
          downloads.push(await download(base, cell.download, round + 1, cell.phase));
        } finally {
          for (const reader of readers) reader.destroy();
        }
        await quiet(idle);
      }
    }
    const series = sampler?.stop();
    report(
      startedAt,
      downloads,
      series === undefined ? undefined : { baselineBytes, peakBytes: series.runtimePeakBytes },
    );
  } catch (error) {
    console.error(`bench:stalled failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

async function download(base: string, key: string, round: number, phase: Download['phase']): Promise<Download> {
  const answer = await timedGet(`${base}/${key}`, GET_TIMEOUT_MS);
  const complete = answer.status === 200 && answer.bytes === DOWNLOAD_BYTES;
  const mibPerSec = answer.bytes / MIB / (answer.totalMs / 1000);
  const edgeHeadMs = parseServerTiming(answer.headers['server-timing']).find((metric) => metric.name === 'edge')?.dur;
  console.log(
    `round ${round}, ${phase}: ${mibPerSec.toFixed(1)} MiB/s, first byte ${answer.ttfbMs.toFixed(0)} ms (edge head ${edgeHeadMs ?? '?'} ms)${complete ? '' : ' INCOMPLETE'}; Server-Timing: ${answer.headers['server-timing'] ?? '–'}; Cache-Status: ${answer.headers['cache-status'] ?? '–'}`,
  );
  return { round, phase, mibPerSec, ttfbMs: answer.ttfbMs, edgeHeadMs, complete };
}

/** A GET that reads READ_BEFORE_STALL bytes of its answer, then stops reading with the connection open. */
function stalledReader(base: string, key: string): Promise<Socket> {
  const url = new URL(`/${key}`, base);
  return new Promise((resolve, reject) => {
    let received = 0;
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`),
    );
    const timer = setTimeout(
      () => reject(new Error(`a stalled reader of ${key} got ${received} bytes in ${STALL_TIMEOUT_MS / 1000} s`)),
      STALL_TIMEOUT_MS,
    );
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received < READ_BEFORE_STALL) return;
      socket.pause();
      clearTimeout(timer);
      resolve(socket);
    });
    socket.on('error', () => undefined);
  });
}

/**
 * Waits until the origin has sent nothing for half a second and the runtime used under
 * IDLE_CPU_SHARE of a core over it (at most 15 s): no fill under way at either tier.
 */
async function quiet(counters: { origin: () => number; runtimeCpu: () => number }): Promise<void> {
  const started = Date.now();
  let last = counters.origin();
  let still = Date.now();
  let cpuAt = counters.runtimeCpu();
  while (Date.now() - started < 15_000) {
    await delay(100);
    const now = counters.origin();
    if (now !== last) {
      last = now;
      still = Date.now();
      cpuAt = counters.runtimeCpu();
    } else if (Date.now() - still >= 500) {
      const busy = counters.runtimeCpu() - cpuAt;
      if (busy <= IDLE_CPU_SHARE * ((Date.now() - still) / 1000)) return;
      still = Date.now();
      cpuAt = counters.runtimeCpu();
    }
  }
}

function report(
  startedAt: Date,
  downloads: Download[],
  memory: { baselineBytes: number; peakBytes: number } | undefined,
): void {
  const speed = (phase: Phase): number => median(downloads.filter((d) => d.phase === phase).map((d) => d.mibPerSec));
  const alone = speed('alone');
  const loaded = speed('with 10 stalled');
  const stalling = speed('as 10 stall');
  const ratio = loaded / alone;
  const firstByte = (phase: Phase): number => median(downloads.filter((d) => d.phase === phase).map((d) => d.ttfbMs));
  const firstByteRatio = firstByte('as 10 stall') / firstByte('alone');
  const complete = downloads.every((d) => d.complete);
  const verdict = complete && ratio >= TARGET_RATIO ? 'PASS' : 'SHORT';
  const firstByteVerdict = complete && firstByteRatio <= TARGET_FIRST_BYTE ? 'PASS' : 'SHORT';
  const table = {
    columns: ['round', 'cold 64 MiB download', 'MiB/s', 'first byte ms', 'edge head sent ms', 'complete'],
    rows: downloads.map((d) => [
      String(d.round),
      d.phase,
      d.mibPerSec.toFixed(1),
      d.ttfbMs.toFixed(0),
      d.edgeHeadMs === undefined ? '–' : d.edgeHeadMs.toFixed(0),
      d.complete ? 'yes' : 'NO',
    ]),
  };
  const memoryLine =
    memory === undefined
      ? 'Runtime memory: not sampled (no /proc).'
      : `Runtime RSS: ${(memory.baselineBytes / MB).toFixed(1)} MB at rest, peak ${(memory.peakBytes / MB).toFixed(1)} MB (growth ${((memory.peakBytes - memory.baselineBytes) / MB).toFixed(1)} MB) across every round, ${STALLED_READERS} stalled readers included.`;
  const markdown = [
    `# Stalled readers, ${startedAt.toISOString()}`,
    '',
    describeMachine(machine()),
    '',
    `${AT === 'location' ? "At the stack's second location: an edge in a workerd process of its own, the shield in another (the first edge idle beside it), the edge's SHIELD binding crossing processes." : "At the stack's edge, in the shield's own workerd process."} Both tiers as \`npm start\` runs them (8 MiB slices, read-ahead earned by reading: shared/tier/slice-reader/demand.ts), behind the shaped origin (80 ms first byte, 25 MB/s per connection; the benchmark's site origin, \`ORIGIN_KIND=http\`, on a thread of its own). Each round: a cold ${DOWNLOAD_BYTES / MIB} MiB download alone; another with ${STALLED_READERS} readers stalled on cold ${STALLED_BYTES / MIB} MiB objects of their own (each read ${READ_BEFORE_STALL / MB} MB, then stopped reading, its connection open), started once the slices they had started were in the store at both tiers (the origin quiet and the runtime idle); and another started the moment ${STALLED_READERS} such readers stall, while their first slices still stream in.`,
    '',
    formatTable(table),
    '',
    `Median with ${STALLED_READERS} stalled / median alone: **${ratio.toFixed(2)}×** (${loaded.toFixed(1)} / ${alone.toFixed(1)} MiB/s), target ≥ ${TARGET_RATIO}: **${verdict}**. Started as they stall: ${(stalling / alone).toFixed(2)}× (${stalling.toFixed(1)} MiB/s), first byte ${firstByte('as 10 stall').toFixed(0)} ms against ${firstByte('alone').toFixed(0)} ms alone (median), **${firstByteRatio.toFixed(2)}×**, target ≤ ${TARGET_FIRST_BYTE}×: **${firstByteVerdict}**. Their own fills (${STALLED_READERS} first slices and what each earned ahead, into the store at both tiers) share the runtime's one thread meanwhile; where the edge sent its head long before the first byte arrived, the wait was the body's way through that thread.`,
    '',
    memoryLine,
    '',
  ].join('\n');
  console.log(`\n${markdown}`);
  void writeResults(
    'stalled',
    startedAt,
    {
      benchmark: 'stalled',
      downloads,
      ratio,
      whileStalling: stalling / alone,
      target: TARGET_RATIO,
      verdict,
      firstByteRatio,
      firstByteTarget: TARGET_FIRST_BYTE,
      firstByteVerdict,
      memory,
    },
    markdown,
  ).then((paths) => console.log(`results: ${paths.join(', ')}`));
  if (!complete) process.exitCode = 1;
}
