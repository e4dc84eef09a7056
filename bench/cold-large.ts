// The cold large object: one GET of an object no cache has seen, through each cache, against a
// single-stream GET straight from the shaped origin. Time to first byte, throughput, and what the
// origin sent. tiercache fetches 8 MiB slices in parallel (read-ahead), the peers one stream.

import { request } from 'node:http';
import { type TierStats, tierStats } from './load.ts';
import { type Context, objectPath, originDelta } from './plan.ts';
import type { TargetName } from './targets.ts';

const MIB = 2 ** 20;
const GET_TIMEOUT_MS = 120_000;

export interface ColdRun {
  target: TargetName;
  status: number;
  bytes: number;
  /** Bytes received match the object's size. */
  complete: boolean;
  ttfbMs: number;
  totalMs: number;
  mibPerSec: number;
  origin: { requests: number; bytes: number };
  /** tiercache only: from this response's Cache-Status and Server-Timing. */
  tiers?: TierStats;
}

export async function coldLarge(context: Context): Promise<ColdRun[]> {
  const { plan, shaper, targets, log } = context;
  const path = objectPath('cold', plan.coldLarge.label);
  const runs: ColdRun[] = [];
  for (const target of targets) {
    log(`cold ${plan.coldLarge.label} ${target.name}: one GET`);
    const before = shaper.stats();
    const answer = await timedGet(`${target.url}${path}`);
    const origin = originDelta(shaper, before);
    const complete = answer.status === 200 && answer.bytes === plan.coldLarge.size;
    const mibPerSec = answer.bytes / MIB / (answer.totalMs / 1000);
    log(`  ${answer.status}, first byte ${answer.ttfbMs.toFixed(0)} ms, ${mibPerSec.toFixed(1)} MiB/s${complete ? '' : ' INCOMPLETE'}`);
    const tiers = target.name === 'tiercache' ? tierStats([{ status: answer.status, headers: answer.headers }]) : undefined;
    runs.push({ target: target.name, status: answer.status, bytes: answer.bytes, complete, ttfbMs: answer.ttfbMs, totalMs: answer.totalMs, mibPerSec, origin, ...(tiers && { tiers }) });
  }
  return runs;
}

interface Answer {
  status: number;
  bytes: number;
  ttfbMs: number;
  totalMs: number;
  headers: Record<string, string | undefined>;
}

/** One GET on a fresh connection; the body is counted and dropped. Rejects after GET_TIMEOUT_MS. */
function timedGet(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfbMs = Number.NaN;
    const pending = request(url, { agent: false }, (response) => {
      let bytes = 0;
      const headers = { 'cache-status': String(response.headers['cache-status'] ?? ''), 'server-timing': String(response.headers['server-timing'] ?? '') };
      response.on('data', (chunk: Buffer) => {
        if (bytes === 0) ttfbMs = performance.now() - started;
        bytes += chunk.length;
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, bytes, ttfbMs, totalMs: performance.now() - started, headers });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(() => pending.destroy(new Error(`GET ${url} took longer than ${GET_TIMEOUT_MS / 1000} s`)), GET_TIMEOUT_MS);
    pending.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    pending.end();
  });
}
