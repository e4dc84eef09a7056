// The built-in load generator, for when wrk is not installed (or is not asked for): each connection is a loop of
// back-to-back requests on its keep-alive socket. Also sampleHeaders, a few sequential GETs whose fields are kept.

import { Agent, type ClientRequest, type IncomingHttpHeaders, request } from 'node:http';
import { mean } from '../report/statistics.ts';
import { DEFAULT_TIMEOUT_SEC, type HeaderSample, type LoadOptions, type LoadResult, MIB } from './load-result.ts';

type Exchange =
  | { ok: true; status: number; bytes: number; ms: number; headers: IncomingHttpHeaders }
  | { ok: false; reason: string };

/** `options` as run-load.ts checked them, `urls` parsed from them. */
export async function nodeLoad(options: LoadOptions, urls: URL[]): Promise<LoadResult> {
  const {
    connections,
    requests: total,
    durationSec,
    headers = {},
    timeoutSec = DEFAULT_TIMEOUT_SEC,
    maxSeconds,
  } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const inFlight = new Set<ClientRequest>();
  const latencies: number[] = [];
  const counts = { issued: 0, requests: 0, errors: 0, non2xx: 0, bytes: 0 };
  const started = performance.now();
  const endsAt = durationSec === undefined ? Number.POSITIVE_INFINITY : started + durationSec * 1000;
  let overrun = false;
  const hardStop = setTimeout(() => {
    overrun = true;
    for (const pending of inFlight) pending.destroy(new Error(`the run's ${maxSeconds} s ran out`));
  }, maxSeconds * 1000);
  const next = (): URL | undefined => {
    if (overrun || (total !== undefined ? counts.issued >= total : performance.now() >= endsAt)) return undefined;
    return urls[counts.issued++ % urls.length];
  };
  const connection = async () => {
    for (let url = next(); url !== undefined; url = next()) {
      const answer = await exchange(url, agent, headers, timeoutSec * 1000, inFlight);
      if (!answer.ok) {
        counts.errors++;
        continue;
      }
      counts.requests++;
      counts.bytes += answer.bytes;
      if (answer.status < 200 || answer.status > 299) counts.non2xx++;
      latencies.push(answer.ms);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, connection));
  } finally {
    clearTimeout(hardStop);
    agent.destroy();
  }
  if (overrun)
    throw new Error(
      `the load run was stopped after ${maxSeconds} s with ${counts.requests} responses and ${counts.errors} errors`,
    );
  const elapsedSec = (performance.now() - started) / 1000;
  return {
    tool: 'node-http',
    requests: counts.requests,
    sent: counts.issued,
    errors: counts.errors,
    non2xx: counts.non2xx,
    elapsedSec,
    reqPerSec: counts.requests / elapsedSec,
    bytes: counts.bytes,
    mibPerSec: counts.bytes / MIB / elapsedSec,
    latency: latencySummary(latencies),
  };
}

/** `n` sequential GETs of `url` (bodies read and dropped), with the fields `names` of each response. */
export async function sampleHeaders(
  url: string,
  names: string[],
  n: number,
  timeoutSec = DEFAULT_TIMEOUT_SEC,
): Promise<HeaderSample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: HeaderSample[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const answer = await exchange(new URL(url), agent, {}, timeoutSec * 1000, new Set());
      if (!answer.ok) throw new Error(`sample ${i + 1} of ${n} from ${url} failed: ${answer.reason}`);
      const headers = Object.fromEntries(names.map((name) => [name.toLowerCase(), fieldValue(answer.headers, name)]));
      samples.push({ status: answer.status, headers });
    }
  } finally {
    agent.destroy();
  }
  return samples;
}

/** One GET, body read in full; settles once, never rejects. */
function exchange(
  url: URL,
  agent: Agent,
  headers: Record<string, string>,
  timeoutMs: number,
  inFlight: Set<ClientRequest>,
): Promise<Exchange> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      inFlight.delete(pending);
      resolve(answer);
    };
    const pending = request(url, { agent, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () =>
        finish({
          ok: true,
          status: response.statusCode ?? 0,
          bytes,
          ms: performance.now() - written,
          headers: response.headers,
        }),
      );
      response.on('error', (error) => finish({ ok: false, reason: error.message }));
      response.on('close', () => finish({ ok: false, reason: 'the response ended before its last byte' }));
    });
    pending.on('error', (error) => finish({ ok: false, reason: error.message }));
    const timer = setTimeout(
      () => pending.destroy(new Error(`no complete response within ${timeoutMs} ms`)),
      timeoutMs,
    );
    inFlight.add(pending);
    const written = performance.now();
    pending.end();
  });
}

/** Exact percentiles by nearest rank: the smallest latency with at least p % of them at or below it. */
function latencySummary(latencies: number[]): LoadResult['latency'] {
  const sorted = Float64Array.from(latencies).sort();
  const rank = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return { meanMs: mean(latencies), p50Ms: rank(50), p99Ms: rank(99), maxMs: sorted[sorted.length - 1] ?? Number.NaN };
}

function fieldValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
