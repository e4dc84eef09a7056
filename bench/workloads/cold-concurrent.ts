// Several cold downloads at once: `count` different objects of the same size, each read by a GET of its own through
// tiercache at the same moment, every cache empty of them; what they get together and how far workerd's RSS grows.

import { setTimeout as delay } from 'node:timers/promises';
import { timedGet } from '../load/timed-get.ts';
import { processesNamed, RUNTIME_NAME } from '../probes/process-rss.ts';
import { medianRuntimeBytes, startSampler } from '../probes/rss-sampler.ts';
import type { Target } from '../setup/targets.ts';
import { type Context, concurrentPath } from './plan.ts';

const MIB = 2 ** 20;
const GET_TIMEOUT_MS = 180_000;
const SAMPLE_INTERVAL_MS = 100;
const BASELINE_MS = 1_000;
/** Sampling goes on this long after the last download ends: the tiers may still be storing. */
const SETTLE_MS = 2_000;
const MAX_SAMPLES = Math.ceil((GET_TIMEOUT_MS + BASELINE_MS + SETTLE_MS) / SAMPLE_INTERVAL_MS) + 10;

export interface ConcurrentRun {
  count: number;
  label: string;
  size: number;
  downloads: { status: number; bytes: number; complete: boolean; ttfbMs: number; mibPerSec: number }[];
  /** Every byte of every download over the time from the first request to the last byte. */
  togetherMiBPerSec: number;
  totalMs: number;
  /** workerd's resident memory: its median over a second before, its peak from the requests to SETTLE_MS after. */
  runtime: { pids: number[]; baselineBytes: number; peakBytes: number; growthBytes: number };
}

/**
 * The downloads, at once, through `tiercache` (whose runtime is the only workerd this process runs now). One isolate
 * per tier serves them all, so its read-ahead pool and its streaming buffers are shared: the targets cold-together
 * (≥ 5× one direct stream, the cold large object's run) and cold-together-memory (growth within 96 MB) judge it in
 * ../report/requirements.ts.
 */
export async function coldConcurrent(context: Context, tiercache: Target): Promise<ConcurrentRun> {
  const { plan, log } = context;
  const { count, label, size } = plan.coldConcurrent;
  const pids = processesNamed(process.pid, RUNTIME_NAME);
  const baseline = startSampler(pids, SAMPLE_INTERVAL_MS, MAX_SAMPLES);
  await delay(BASELINE_MS);
  const baselineBytes = medianRuntimeBytes(baseline.stop());
  log(`cold ${count} × ${label} tiercache: ${count} GETs of different objects, at once`);
  const sampler = startSampler(pids, SAMPLE_INTERVAL_MS, MAX_SAMPLES);
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => timedGet(`${tiercache.url}${concurrentPath(plan, i)}`, GET_TIMEOUT_MS)),
  );
  const totalMs = performance.now() - started;
  await delay(SETTLE_MS);
  const peakBytes = sampler.stop().runtimePeakBytes;
  const downloads = answers.map((answer) => ({
    status: answer.status,
    bytes: answer.bytes,
    complete: answer.status === 200 && answer.bytes === size,
    ttfbMs: answer.ttfbMs,
    mibPerSec: answer.bytes / MIB / (answer.totalMs / 1000),
  }));
  const togetherMiBPerSec = downloads.reduce((sum, d) => sum + d.bytes, 0) / MIB / (totalMs / 1000);
  const growthBytes = peakBytes - baselineBytes;
  log(
    `  together ${togetherMiBPerSec.toFixed(1)} MiB/s (each ${downloads.map((d) => d.mibPerSec.toFixed(1)).join(', ')}${downloads.every((d) => d.complete) ? '' : ', INCOMPLETE'}); workerd grew ${(growthBytes / 1e6).toFixed(1)} MB`,
  );
  return {
    count,
    label,
    size,
    downloads,
    togetherMiBPerSec,
    totalMs,
    runtime: { pids, baselineBytes, peakBytes, growthBytes },
  };
}
