// `npm run bench:memory`: workerd's resident memory growth while a 1 GiB object is downloaded through both tiers,
// cold (origin → shield → edge) then warm (from the edge's cache), against the requirement's 96 MB.

import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { deterministicBytes, expectedSha256 } from '../local/assets.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { medianRuntimeBytes, type RssSeries, startSampler } from './probes/rss-sampler.ts';
import { type MemoryRun, memoryMarkdown, memoryTable, type Phase } from './report/memory-report.ts';
import { describeError, machine, writeResults } from './report/results.ts';
import { type LocalStack, withLocalStack, withTimeout } from './setup/local-stack.ts';

const MIB = 1024 * 1024;
const MB = 1_000_000;
/**
 * The requirement: "downloading a 1 GiB object through both tiers keeps the local runtime's resident memory growth
 * within 96 MB" (well inside the 128 MB a Worker's isolate has). The stricter reading of "96 MB" (decimal): 96 MiB
 * would be 100.7 MB. A growth over it is reported (SHORT), not asserted: the run exits 1 only on wrong bytes.
 */
const LIMIT_BYTES = 96 * MB;
/**
 * MEMORY_BENCH_MIB=256 downloads a smaller object (the verdict then only indicates); the slicing settings
 * (SLICE_SIZE, SLICE_READAHEAD, …) are taken from the environment too (setup/local-stack.ts).
 */
const OBJECT_SIZE = Number(process.env.MEMORY_BENCH_MIB ?? 1024) * MIB;
const OBJECT_KEY = `bench/memory-${OBJECT_SIZE / MIB}MiB.bin`;
const OBJECT_SEED = 0x6d65_6d31;
const WARM_UP_KEY = 'bench/warm-up.txt';
/** The runtime is the workerd process Miniflare starts; its RSS is read from /proc this often. */
const SAMPLE_INTERVAL_MS = 100;
/** The growth is counted from the RSS sampled this long after start-up and one small warm-up request. */
const BASELINE_MS = 1_000;
/** Sampling goes on this long after each download ends: the edge may still be storing slices. */
const SETTLE_MS = 2_000;
const PHASE_TIMEOUT_MS = 5 * 60_000;
const MAX_SAMPLES = Math.ceil((PHASE_TIMEOUT_MS + SETTLE_MS) / SAMPLE_INTERVAL_MS) + 10;

await main();

async function main(): Promise<void> {
  if (!Number.isSafeInteger(OBJECT_SIZE) || OBJECT_SIZE <= 0)
    return fail(`MEMORY_BENCH_MIB must be a positive number of MiB, got ${process.env.MEMORY_BENCH_MIB}`);
  if (!procAvailable())
    return fail('bench:memory reads resident memory from /proc, which this system does not have (Linux only)');
  const startedAt = new Date();
  try {
    const run = await withLocalStack((local) => measure(local, startedAt));
    const markdown = memoryMarkdown(run, memoryTable(run));
    console.log(`\n${markdown}`);
    const paths = await writeResults('memory', startedAt, run, markdown);
    console.log(`results: ${paths.join(', ')}`);
    process.exitCode = run.phases.every((phase) => phase.bytesOk) ? 0 : 1;
  } catch (error) {
    fail(`bench:memory failed: ${describeError(error)}`);
  }
}

async function measure({ origin, stack, slicing }: LocalStack, startedAt: Date): Promise<MemoryRun> {
  console.log(`uploading ${OBJECT_SIZE / MIB} MiB to the embedded origin (and hashing it) …`);
  const uploadStarted = performance.now();
  const headers = { 'content-length': String(OBJECT_SIZE), 'content-type': 'application/octet-stream' };
  const [, sha256] = await withTimeout(
    Promise.all([
      origin.putObject(OBJECT_KEY, deterministicBytes(OBJECT_SEED, OBJECT_SIZE), headers),
      expectedSha256(OBJECT_SEED, OBJECT_SIZE),
    ]),
    PHASE_TIMEOUT_MS,
    'the upload',
  );
  const uploadMs = performance.now() - uploadStarted;

  const pids = processesNamed(process.pid, RUNTIME_NAME);
  if (pids.length === 0) throw new Error(`no ${RUNTIME_NAME} process among this process's descendants`);
  await origin.putObject(WARM_UP_KEY, 'warm-up\n', { 'content-type': 'text/plain' });
  const warmUp = await download(new URL(WARM_UP_KEY, `${stack.url}/`), AbortSignal.timeout(30_000));
  if (warmUp.status !== 200) throw new Error(`the warm-up request answered ${warmUp.status}, expected 200`);
  const baseline = startSampler(pids, SAMPLE_INTERVAL_MS, MAX_SAMPLES);
  await delay(BASELINE_MS);
  const baselineSeries = baseline.stop();
  const baselineBytes = medianRuntimeBytes(baselineSeries);

  const url = new URL(OBJECT_KEY, `${stack.url}/`);
  const phases: Phase[] = [];
  for (const name of ['cold', 'warm'] as const) {
    console.log(`${name} GET of ${url.pathname} …`);
    phases.push(await phase(name, url, pids, baselineBytes, sha256));
  }
  return {
    benchmark: 'memory',
    startedAt: startedAt.toISOString(),
    machine: machine(),
    object: { key: OBJECT_KEY, size: OBJECT_SIZE, seed: OBJECT_SEED, sha256 },
    slicing,
    limitBytes: LIMIT_BYTES,
    sampleIntervalMs: SAMPLE_INTERVAL_MS,
    settleMs: SETTLE_MS,
    runtime: { name: RUNTIME_NAME, pids },
    upload: { durationMs: Math.round(uploadMs) },
    baseline: { runtimeBytes: baselineBytes, nodeBytes: baselineSeries.nodePeakBytes, samples: baselineSeries.samples },
    phases,
  };
}

/** One full GET of the object, its RSS sampled from the first byte asked to SETTLE_MS after the last. */
async function phase(
  name: Phase['phase'],
  url: URL,
  pids: number[],
  baselineBytes: number,
  sha256: string,
): Promise<Phase> {
  const sampler = startSampler(pids, SAMPLE_INTERVAL_MS, MAX_SAMPLES);
  const started = performance.now();
  const got = await download(url, AbortSignal.timeout(PHASE_TIMEOUT_MS));
  const durationMs = performance.now() - started;
  await delay(SETTLE_MS);
  const series: RssSeries = sampler.stop();
  const growthBytes = series.runtimePeakBytes - baselineBytes;
  return {
    phase: name,
    status: got.status,
    cacheStatus: got.cacheStatus,
    bytes: got.length,
    bytesOk: got.error === undefined && got.status === 200 && got.length === OBJECT_SIZE && got.sha256 === sha256,
    ...(got.error === undefined ? {} : { error: got.error }),
    durationMs: Math.round(durationMs),
    mibPerSecond: Math.round((got.length / MIB / (durationMs / 1000)) * 10) / 10,
    runtimeStartBytes: series.samples[0]?.runtimeBytes ?? 0,
    runtimePeakBytes: series.runtimePeakBytes,
    runtimeEndBytes: series.samples.at(-1)?.runtimeBytes ?? 0,
    growthBytes,
    verdict: growthBytes < LIMIT_BYTES ? 'PASS' : 'SHORT',
    nodePeakBytes: series.nodePeakBytes,
    runtimeExitedSamples: series.missing,
    samples: series.samples,
  };
}

/** A GET read to its end and hashed as it streams, never held whole. */
async function download(
  url: URL,
  signal: AbortSignal,
): Promise<{ status: number; cacheStatus: string; length: number; sha256: string; error?: string }> {
  const hash = createHash('sha256');
  let length = 0;
  let status = 0;
  let cacheStatus = '';
  try {
    const response = await fetch(url, { signal });
    status = response.status;
    cacheStatus = response.headers.get('cache-status') ?? '';
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
      hash.update(read.value);
      length += read.value.byteLength;
    }
    return { status, cacheStatus, length, sha256: hash.digest('hex') };
  } catch (error) {
    return { status, cacheStatus, length, sha256: hash.digest('hex'), error: describeError(error) };
  }
}

function fail(message: string): void {
  console.error(message);
  process.exitCode = 2;
}
