// `npm run bench:stalled`: what ten clients that stopped reading cost everyone else. Both
// tiers run as `npm start` runs them, in front of the shaped origin (80 ms first byte, 25 MB/s
// per connection, as `npm run bench`); each cold 64 MiB download is timed alone, then with ten
// readers stalled on cold large objects of their own (each read 1 MB and stopped reading,
// connection open), in alternating rounds, so that the ratio is taken within one run. The
// target (issue 11): at least 0.8× the unloaded throughput. The runtime's resident memory is
// sampled throughout: stalled readers must not make the isolate hold their objects.
// Writes bench/results/<timestamp>/stalled.{json,md}.

import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { deterministicBytes } from '../test/stack/assets.ts';
import { startS3Origin } from '../test/stack/origin.ts';
import { startWorkers } from '../test/stack/workers.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from './process-rss.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report.ts';
import { medianRuntimeBytes, startSampler } from './rss-sampler.ts';
import { startShaper } from './shaper.ts';
import { timedGet } from './timed-get.ts';

const MIB = 2 ** 20;
const MB = 1e6;
const DOWNLOAD_BYTES = 64 * MIB;
const STALLED_BYTES = 24 * MIB;
const STALLED_READERS = 10;
/** Each stalled reader takes this much of its object, then stops reading. */
const READ_BEFORE_STALL = MB;
const ROUNDS = 3;
const TARGET_RATIO = 0.8;
const GET_TIMEOUT_MS = 120_000;
const STALL_TIMEOUT_MS = 30_000;

interface Download {
  round: number;
  phase: 'alone' | 'with 10 stalled';
  mibPerSec: number;
  ttfbMs: number;
  complete: boolean;
}

await main();

async function main(): Promise<void> {
  const startedAt = new Date();
  const stops: (() => Promise<void>)[] = [];
  try {
    const origin = await startS3Origin();
    stops.push(() => origin.close());
    const shaper = await startShaper({ target: origin.url });
    stops.push(() => shaper.close());
    const keys = { downloads: [] as string[], stalled: [] as string[][] };
    console.log(`uploading ${2 * ROUNDS} × ${DOWNLOAD_BYTES / MIB} MiB and ${ROUNDS * STALLED_READERS} × ${STALLED_BYTES / MIB} MiB …`);
    const uploads: Promise<void>[] = [];
    const upload = (key: string, size: number, seed: number) => uploads.push(origin.putObject(key, deterministicBytes(seed, size), { 'content-length': String(size), 'content-type': 'video/mp4' }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const phase of ['alone', 'loaded']) {
        const key = `stalled-bench/${phase}-${round}.bin`;
        keys.downloads.push(key);
        upload(key, DOWNLOAD_BYTES, 0x5a11 + keys.downloads.length);
      }
      keys.stalled.push(Array.from({ length: STALLED_READERS }, (_, i) => `stalled-bench/reader-${round}-${i}.bin`));
      keys.stalled[round]?.forEach((key, i) => upload(key, STALLED_BYTES, 0x7a11 + round * 100 + i));
    }
    await Promise.all(uploads);
    const config = {
      ORIGIN_KIND: 's3',
      ORIGIN_URL: shaper.url,
      S3_BUCKET: origin.bucket,
      S3_ACCESS_KEY_ID: origin.accessKeyId,
      S3_SECRET_ACCESS_KEY: origin.secretAccessKey,
      S3_ADDRESSING: 'path',
      SHIELD_TOKEN: randomUUID(),
    };
    const stack = await startWorkers({ config, port: 0 });
    stops.push(() => stack.dispose());
    const pids = procAvailable() ? processesNamed(process.pid, RUNTIME_NAME) : [];
    const baseline = pids.length > 0 ? startSampler(pids, 100, 50) : undefined;
    await delay(1000);
    const baselineBytes = baseline === undefined ? 0 : medianRuntimeBytes(baseline.stop());
    const sampler = pids.length > 0 ? startSampler(pids, 100, 20_000) : undefined;

    const downloads: Download[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      downloads.push(await download(stack.url, keys.downloads[2 * round] as string, round + 1, 'alone'));
      const readers = await Promise.all((keys.stalled[round] ?? []).map((key) => stalledReader(stack.url, key)));
      try {
        downloads.push(await download(stack.url, keys.downloads[2 * round + 1] as string, round + 1, 'with 10 stalled'));
      } finally {
        for (const reader of readers) reader.destroy();
      }
      await delay(500);
    }
    const series = sampler?.stop();
    report(startedAt, downloads, series === undefined ? undefined : { baselineBytes, peakBytes: series.runtimePeakBytes });
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
  console.log(`round ${round}, ${phase}: ${mibPerSec.toFixed(1)} MiB/s, first byte ${answer.ttfbMs.toFixed(0)} ms${complete ? '' : ' INCOMPLETE'}`);
  return { round, phase, mibPerSec, ttfbMs: answer.ttfbMs, complete };
}

/** A GET that reads READ_BEFORE_STALL bytes of its answer, then stops reading with the connection open. */
function stalledReader(base: string, key: string): Promise<Socket> {
  const url = new URL(`/${key}`, base);
  return new Promise((resolve, reject) => {
    let received = 0;
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`));
    const timer = setTimeout(() => reject(new Error(`a stalled reader of ${key} got ${received} bytes in ${STALL_TIMEOUT_MS / 1000} s`)), STALL_TIMEOUT_MS);
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function report(startedAt: Date, downloads: Download[], memory: { baselineBytes: number; peakBytes: number } | undefined): void {
  const alone = median(downloads.filter((d) => d.phase === 'alone').map((d) => d.mibPerSec));
  const loaded = median(downloads.filter((d) => d.phase !== 'alone').map((d) => d.mibPerSec));
  const ratio = loaded / alone;
  const complete = downloads.every((d) => d.complete);
  const verdict = complete && ratio >= TARGET_RATIO ? 'PASS' : 'SHORT';
  const table = {
    columns: ['round', 'cold 64 MiB download', 'MiB/s', 'first byte ms', 'complete'],
    rows: downloads.map((d) => [String(d.round), d.phase, d.mibPerSec.toFixed(1), d.ttfbMs.toFixed(0), d.complete ? 'yes' : 'NO']),
  };
  const memoryLine = memory === undefined ? 'Runtime memory: not sampled (no /proc).' : `Runtime RSS: ${(memory.baselineBytes / MB).toFixed(1)} MB at rest, peak ${(memory.peakBytes / MB).toFixed(1)} MB (growth ${((memory.peakBytes - memory.baselineBytes) / MB).toFixed(1)} MB) across every round, ${STALLED_READERS} stalled readers included.`;
  const markdown = [
    `# Stalled readers, ${startedAt.toISOString()}`,
    '',
    describeMachine(machine()),
    '',
    `Both tiers as \`npm start\` runs them (8 MiB slices, read-ahead ${6}), behind the shaped origin (80 ms first byte, 25 MB/s per connection). Each round: a cold ${DOWNLOAD_BYTES / MIB} MiB download alone, then another with ${STALLED_READERS} readers stalled on cold ${STALLED_BYTES / MIB} MiB objects of their own (each read ${READ_BEFORE_STALL / MB} MB, then stopped reading, its connection open).`,
    '',
    formatTable(table),
    '',
    `Median with ${STALLED_READERS} stalled / median alone: **${ratio.toFixed(2)}×** (${loaded.toFixed(1)} / ${alone.toFixed(1)} MiB/s), target ≥ ${TARGET_RATIO}: **${verdict}**.`,
    '',
    memoryLine,
    '',
  ].join('\n');
  console.log(`\n${markdown}`);
  void writeResults('stalled', startedAt, { benchmark: 'stalled', downloads, ratio, target: TARGET_RATIO, verdict, memory }, markdown).then((paths) => console.log(`results: ${paths.join(', ')}`));
  if (!complete) process.exitCode = 1;
}
