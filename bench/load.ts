// Load for the benchmarks: `connections` concurrent clients against one URL or several (taken in
// turn), either for a fixed number of requests in all (Siege/ab style) or for a duration; wrk
// runs both when it is installed (wrk.ts), else the built-in keep-alive Node generator. Also the
// per-tier view of a few sequential responses: RFC 9211 Cache-Status hits and Server-Timing
// durations.
//
// Counting, which both tools share: `requests` is responses received in full (any status),
// `errors` is exchanges that ended without one (refused, reset, timed out), so with a fixed
// count requests + errors = the count. What differs with wrk (its bytes, latencies and statuses)
// is said in wrk.ts.

import { Agent, type ClientRequest, type IncomingHttpHeaders, request } from 'node:http';
import { EDGE_CACHE_NAME, SHIELD_CACHE_NAME } from '../shared/http/cache-status.ts';
import { splitList } from '../shared/http/header-list.ts';
import { runWrk, wrkInstalled } from './wrk.ts';

const DEFAULT_TIMEOUT_SEC = 10;
const MIB = 2 ** 20;

export interface LoadOptions {
  /** One URL, or several taken in turn (round-robin); http: only. */
  url: string | string[];
  connections: number;
  /** Requests in all, across the connections (10 connections × 50 requests = 500). */
  requests?: number;
  /** Or: keep every connection busy this long. Exactly one of `requests` and `durationSec`. */
  durationSec?: number;
  headers?: Record<string, string>;
  /** Per request, until its last body byte; 10 s unless said. */
  timeoutSec?: number;
  /** The whole run is stopped after this long, and the run then rejects. */
  maxSeconds: number;
  /** Forces a generator; by default wrk runs when it is installed (durations in whole seconds, URLs of one origin). */
  tool?: LoadResult['tool'];
  /** Every answer's body length, when each must carry the whole object (lets wrk check statuses cheaply). */
  bodyBytes?: number;
}

export interface LoadResult {
  tool: 'wrk 4.x' | 'node-http';
  requests: number;
  /** Requests written, for a fixed count (wrk writes none past it either). */
  sent?: number;
  errors: number;
  /** wrk only: its own socket error count (connect, read, write, timeout), for the record. */
  socketErrors?: number;
  non2xx: number;
  elapsedSec: number;
  reqPerSec: number;
  bytes: number;
  mibPerSec: number;
  /** From writing a request to its last body byte, over the `requests` answered; NaN when none were. */
  latency: { meanMs: number; p50Ms: number; p99Ms: number; maxMs: number };
}

export interface HeaderSample {
  status: number;
  /** By lower-case name; undefined when the response did not have the field. */
  headers: Record<string, string | undefined>;
}

export interface TierCount {
  hits: number;
  forwards: number;
  /** hits / (hits + forwards); NaN when no response said either. */
  hitRatio: number;
}

export type TimedTier = 'edge' | 'shield' | 'origin';

export interface TierStats {
  samples: number;
  /** From the `tiercache-edge` member: `hit`, or `fwd=…` (any reason). */
  edge: TierCount;
  /** From the `tiercache-shield` member, on the responses the edge forwarded only. */
  shield: TierCount;
  /** Mean Server-Timing `dur` per tier, over the `count` responses that carry its metric. */
  timing: Record<TimedTier, { meanMs: number; count: number }>;
}

/** Runs the load; rejects on bad options, on a failed wrk, or when `maxSeconds` ran out. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const urls = targets(options);
  const { requests, durationSec, tool } = options;
  const wrkCan = (requests !== undefined || Number.isInteger(durationSec)) && sameOrigin(urls);
  if (tool === 'wrk 4.x' && !wrkCan) throw new Error('wrk runs a count or a whole number of seconds against URLs of one origin');
  if (wrkCan && tool !== 'node-http' && (tool === 'wrk 4.x' || (await wrkInstalled()))) {
    const { connections, headers = {}, timeoutSec = DEFAULT_TIMEOUT_SEC, maxSeconds, bodyBytes } = options;
    return runWrk({ urls, connections, headers, timeoutSec, maxSeconds, ...(requests !== undefined ? { requests } : { durationSec }), ...(bodyBytes !== undefined && { bodyBytes }) });
  }
  return nodeLoad(options, urls);
}

/** `n` sequential GETs of `url` (bodies read and dropped), with the fields `names` of each response. */
export async function sampleHeaders(url: string, names: string[], n: number, timeoutSec = DEFAULT_TIMEOUT_SEC): Promise<HeaderSample[]> {
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

/**
 * A fixed-count run whose first request was made alone (one sequential GET, timed: the cold
 * miss), then the rest under load: one result for the count. Times add up; the mean and max
 * take the first answer in; p50 and p99 are the load's (with N = 500 the nearest-rank p99 is
 * the 6th slowest, which leaving out the one slowest does not move).
 */
export function withFirstAnswer(first: { status: number; bytes: number; totalMs: number }, rest: LoadResult): LoadResult {
  const requests = rest.requests + 1;
  const elapsedSec = first.totalMs / 1000 + rest.elapsedSec;
  const bytes = rest.bytes + first.bytes;
  const firstNon2xx = first.status < 200 || first.status > 299 ? 1 : 0;
  return {
    ...rest,
    requests,
    ...(rest.sent !== undefined && { sent: rest.sent + 1 }),
    non2xx: rest.non2xx + firstNon2xx,
    elapsedSec,
    reqPerSec: requests / elapsedSec,
    bytes,
    mibPerSec: bytes / MIB / elapsedSec,
    latency: {
      meanMs: (first.totalMs + rest.latency.meanMs * rest.requests) / requests,
      p50Ms: rest.latency.p50Ms,
      p99Ms: rest.latency.p99Ms,
      maxMs: Math.max(first.totalMs, rest.latency.maxMs),
    },
  };
}

export function tierStats(samples: readonly HeaderSample[]): TierStats {
  const edge = { hits: 0, forwards: 0 };
  const shield = { hits: 0, forwards: 0 };
  const timing = { edge: [] as number[], shield: [] as number[], origin: [] as number[] };
  for (const sample of samples) {
    const members = cacheStatusMembers(sample.headers['cache-status']);
    const atEdge = verdict(members.get(EDGE_CACHE_NAME));
    if (atEdge) edge[atEdge]++;
    // The shield's member describes this response only when the edge went forward for it.
    const atShield = atEdge === 'forwards' ? verdict(members.get(SHIELD_CACHE_NAME)) : undefined;
    if (atShield) shield[atShield]++;
    for (const [name, dur] of serverTimingDurations(sample.headers['server-timing'])) {
      if (name === 'edge' || name === 'shield' || name === 'origin') timing[name].push(dur);
    }
  }
  const summary = (durations: number[]) => ({ meanMs: mean(durations), count: durations.length });
  return {
    samples: samples.length,
    edge: { ...edge, hitRatio: edge.hits / (edge.hits + edge.forwards) },
    shield: { ...shield, hitRatio: shield.hits / (shield.hits + shield.forwards) },
    timing: { edge: summary(timing.edge), shield: summary(timing.shield), origin: summary(timing.origin) },
  };
}

function targets(options: LoadOptions): URL[] {
  const urls = (Array.isArray(options.url) ? options.url : [options.url]).map((url) => new URL(url));
  const wholeNumber = (value: number | undefined) => value !== undefined && Number.isSafeInteger(value) && value > 0;
  if (urls.length === 0 || urls.some((url) => url.protocol !== 'http:')) throw new Error(`expected one or more http: URLs, got ${String(options.url)}`);
  if (!wholeNumber(options.connections)) throw new Error(`connections must be a positive whole number, got ${options.connections}`);
  if ((options.requests === undefined) === (options.durationSec === undefined)) throw new Error('expected either requests or durationSec, not both or neither');
  if (options.requests !== undefined && !wholeNumber(options.requests)) throw new Error(`requests must be a positive whole number, got ${options.requests}`);
  if (options.durationSec !== undefined && !(options.durationSec > 0 && options.durationSec < options.maxSeconds)) {
    throw new Error(`durationSec must be above 0 and below maxSeconds (${options.maxSeconds}), got ${options.durationSec}`);
  }
  if (!(options.maxSeconds > 0)) throw new Error(`maxSeconds must be above 0, got ${options.maxSeconds}`);
  return urls;
}

// The Node generator: each connection is a loop of back-to-back requests on its keep-alive socket.

type Exchange = { ok: true; status: number; bytes: number; ms: number; headers: IncomingHttpHeaders } | { ok: false; reason: string };

async function nodeLoad(options: LoadOptions, urls: URL[]): Promise<LoadResult> {
  const { connections, requests: total, durationSec, headers = {}, timeoutSec = DEFAULT_TIMEOUT_SEC, maxSeconds } = options;
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
  if (overrun) throw new Error(`the load run was stopped after ${maxSeconds} s with ${counts.requests} responses and ${counts.errors} errors`);
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

/** One GET, body read in full; settles once, never rejects. */
function exchange(url: URL, agent: Agent, headers: Record<string, string>, timeoutMs: number, inFlight: Set<ClientRequest>): Promise<Exchange> {
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
      response.on('end', () => finish({ ok: true, status: response.statusCode ?? 0, bytes, ms: performance.now() - written, headers: response.headers }));
      response.on('error', (error) => finish({ ok: false, reason: error.message }));
      response.on('close', () => finish({ ok: false, reason: 'the response ended before its last byte' }));
    });
    pending.on('error', (error) => finish({ ok: false, reason: error.message }));
    const timer = setTimeout(() => pending.destroy(new Error(`no complete response within ${timeoutMs} ms`)), timeoutMs);
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

function sameOrigin(urls: URL[]): boolean {
  return urls.every((url) => url.origin === urls[0]?.origin);
}

// RFC 9211 Cache-Status and Server-Timing, read as far as tierStats needs.

/** Each member's parameters by cache name; a quoted detail may hold ';' (RFC 8941 sf-string). */
function cacheStatusMembers(value: string | undefined): Map<string, Map<string, string>> {
  const members = new Map<string, Map<string, string>>();
  for (const member of splitList(value ?? '')) {
    const [name = '', ...params] = parameters(member);
    // A parameter without a value is the boolean true, ?1 (RFC 8941 §3.1.2).
    members.set(name, new Map(params.map((param) => (param.includes('=') ? [param.slice(0, param.indexOf('=')), param.slice(param.indexOf('=') + 1)] : [param, '?1']))));
  }
  return members;
}

/** RFC 9211 §2.1 `hit`: served without going forward; §2.2 `fwd`: went forward, whatever the reason. */
function verdict(params: Map<string, string> | undefined): keyof Omit<TierCount, 'hitRatio'> | undefined {
  if (params?.has('fwd')) return 'forwards';
  return params?.get('hit') === '?1' ? 'hits' : undefined;
}

function serverTimingDurations(value: string | undefined): [string, number][] {
  return splitList(value ?? '').flatMap((metric) => {
    const [name = '', ...params] = parameters(metric);
    const dur = params.find((param) => param.startsWith('dur='));
    const ms = Number(dur?.slice('dur='.length) || Number.NaN);
    return Number.isFinite(ms) ? [[name, ms] as [string, number]] : [];
  });
}

/** `item;a=1;b` split on the ';' outside quoted strings, quoted values blanked, trimmed. */
function parameters(item: string): string[] {
  return item
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .split(';')
    .map((part) => part.trim());
}

function fieldValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}
