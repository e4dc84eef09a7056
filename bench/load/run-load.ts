// Load for the benchmarks: `connections` concurrent clients against one URL or several (taken in turn), for a fixed
// number of requests in all (Siege/ab style) or for a duration, by wrk when it is installed, else by node-http.ts.

import { DEFAULT_TIMEOUT_SEC, type LoadOptions, type LoadResult, MIB } from './load-result.ts';
import { nodeLoad } from './node-http.ts';
import { runWrk, wrkInstalled } from './wrk.ts';

/** Runs the load; rejects on bad options, on a failed wrk, or when `maxSeconds` ran out. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const urls = targets(options);
  const { requests, durationSec, tool } = options;
  const wrkCan = (requests !== undefined || Number.isInteger(durationSec)) && sameOrigin(urls);
  if (tool === 'wrk 4.x' && !wrkCan)
    throw new Error('wrk runs a count or a whole number of seconds against URLs of one origin');
  if (wrkCan && tool !== 'node-http' && (tool === 'wrk 4.x' || (await wrkInstalled()))) {
    const { connections, headers = {}, timeoutSec = DEFAULT_TIMEOUT_SEC, maxSeconds, bodyBytes } = options;
    return runWrk({
      urls,
      connections,
      headers,
      timeoutSec,
      maxSeconds,
      ...(requests !== undefined ? { requests } : { durationSec }),
      ...(bodyBytes !== undefined && { bodyBytes }),
    });
  }
  return nodeLoad(options, urls);
}

/**
 * A fixed-count run whose first request was made alone (one sequential GET, timed: the cold
 * miss), then the rest under load: one result for the count. Times add up; the mean and max
 * take the first answer in; p50 and p99 are the load's (with N = 500 the nearest-rank p99 is
 * the 6th slowest, which leaving out the one slowest does not move).
 */
export function withFirstAnswer(
  first: { status: number; bytes: number; totalMs: number },
  rest: LoadResult,
): LoadResult {
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

function targets(options: LoadOptions): URL[] {
  const urls = (Array.isArray(options.url) ? options.url : [options.url]).map((url) => new URL(url));
  const wholeNumber = (value: number | undefined) => value !== undefined && Number.isSafeInteger(value) && value > 0;
  if (urls.length === 0 || urls.some((url) => url.protocol !== 'http:'))
    throw new Error(`expected one or more http: URLs, got ${String(options.url)}`);
  if (!wholeNumber(options.connections))
    throw new Error(`connections must be a positive whole number, got ${options.connections}`);
  if ((options.requests === undefined) === (options.durationSec === undefined))
    throw new Error('expected either requests or durationSec, not both or neither');
  if (options.requests !== undefined && !wholeNumber(options.requests))
    throw new Error(`requests must be a positive whole number, got ${options.requests}`);
  if (options.durationSec !== undefined && !(options.durationSec > 0 && options.durationSec < options.maxSeconds)) {
    throw new Error(
      `durationSec must be above 0 and below maxSeconds (${options.maxSeconds}), got ${options.durationSec}`,
    );
  }
  if (!(options.maxSeconds > 0)) throw new Error(`maxSeconds must be above 0, got ${options.maxSeconds}`);
  return urls;
}

function sameOrigin(urls: URL[]): boolean {
  return urls.every((url) => url.origin === urls[0]?.origin);
}
