// The replay client: each trace request sent at its time (divided by the run's speed) to its location, on keep-alive
// connections per location as browsers and players keep them; the time to the response's first byte, its status and
// headers, and every body byte checked against the object's bytes at the offset it arrived at (for the version its
// ETag names). A request with `abort=N` closes its connection after N body bytes, as a player that seeks does.
// PURGE lines are handed to the runner (`onPurge`), which owns what a purge means for a system.

import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { SimLocation } from './system.ts';
import { parseContentRange, singleRange } from './workload/byte-range.ts';
import { etagVersion } from './workload/content.ts';
import { COMPUTED_CONTENT, type ContentBook, type ObjectContent } from './workload/object-content.ts';
import type { Trace, TraceRequest } from './workload/trace.ts';

const REQUEST_TIMEOUT_MS = 180_000;

export interface ReplayResult {
  /** The request's index in the trace's requests. */
  index: number;
  location: number;
  method: 'GET' | 'HEAD';
  path: string;
  range?: string;
  tag?: string;
  /** The origin's version of the path when the request was sent (what a cache may rightly answer, or an older one). */
  versionAtSend: number;
  /** The version the answer's ETag named; undefined without one of ours. */
  versionServed?: number;
  /** Lateness of the send against its paced time (the client's own load, reported beside the times). */
  lateMs: number;
  status: number;
  /** From the request's (first) send to the response's first byte (its head); NaN when none came. */
  ttfbMs: number;
  bytes: number;
  /** The client closed the connection as the trace said (abort=N). */
  aborted: boolean;
  /** A body byte differed from the object's at its offset, or a head said other bytes than asked. */
  wrong: boolean;
  /** What was wrong or failed (network error, short body, 5xx); absent when all was right. */
  problem?: string;
  cacheStatus?: string;
  xCacheStatus?: string;
  /** It went on a kept-alive connection (a failure there before any answer is retried once). */
  reusedConnection?: boolean;
  /** Its first attempt failed before any answer on a kept-alive connection, and this is the second. */
  retried?: boolean;
}

export interface ReplayOptions {
  trace: Trace;
  locations: readonly SimLocation[];
  /** Trace time ÷ speed = replay time: 4 plays 3 minutes in 45 s (links' latencies are not compressed). */
  speed: number;
  /** The origin's current version of a path. */
  versionOf(path: string): number;
  /** Called at a PURGE line's time; the replay goes on without waiting for it. */
  onPurge?(request: TraceRequest): Promise<void>;
  /** What each object holds (object-content.ts); absent: computed bytes for all. */
  content?: ContentBook;
}

/** Plays the trace; resolves when every request has ended (never rejects: a failure is a result with a problem). */
export async function replay(options: ReplayOptions): Promise<ReplayResult[]> {
  const sizes = new Map(options.trace.objects.map((object) => [object.path, object.size]));
  const agents = options.locations.map(() => new Agent({ keepAlive: true, maxSockets: 64 }));
  const pending: Promise<ReplayResult | undefined>[] = [];
  const purges: Promise<void>[] = [];
  const started = performance.now();
  try {
    for (const [index, request] of options.trace.requests.entries()) {
      const due = started + request.atMs / options.speed;
      const wait = due - performance.now();
      if (wait > 1) await delay(wait);
      if (request.method === 'PURGE') {
        purges.push(options.onPurge?.(request) ?? Promise.resolve());
        continue;
      }
      const location = options.locations[request.location];
      const agent = agents[request.location];
      if (location === undefined || agent === undefined)
        throw new Error(`trace request ${index} is at location ${request.location}; the system has ${agents.length}`);
      const size = sizes.get(request.path) ?? 0;
      const late = performance.now() - due;
      const version = options.versionOf(request.path);
      const content = options.content ?? COMPUTED_CONTENT;
      pending.push(send(location.url, agent, request, { index, size, late, version, content }));
    }
    const results = await Promise.all(pending);
    await Promise.all(purges);
    return results.filter((result): result is ReplayResult => result !== undefined);
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

interface SendContext {
  index: number;
  size: number;
  late: number;
  version: number;
  /** What the object holds; absent: computed bytes (a purge probe's page). */
  content?: ContentBook;
}

/**
 * One request; resolves with what came back, its bytes checked as they arrived. A request that failed before any
 * answer on a kept-alive connection is sent once more on another, as browsers do (RFC 9112 §9.3.1: the server may
 * have closed the idle connection as the request left; GET and HEAD are idempotent); the result says it was.
 */
export async function send(
  base: string,
  agent: Agent,
  request: TraceRequest,
  context: SendContext,
): Promise<ReplayResult> {
  const sent = performance.now();
  const first = await attempt(base, agent, request, context, sent);
  if (!(first.reusedConnection && first.status === 0 && first.bytes === 0)) return first;
  const again = await attempt(base, agent, request, context, sent);
  again.retried = true;
  return again;
}

function attempt(
  base: string,
  agent: Agent,
  request: TraceRequest,
  context: SendContext,
  sent: number,
): Promise<ReplayResult> {
  const method = request.method === 'HEAD' ? 'HEAD' : 'GET';
  return new Promise((resolve) => {
    const result: ReplayResult = {
      index: context.index,
      location: request.location,
      method,
      path: request.path,
      ...(request.range !== undefined && { range: request.range }),
      ...(request.tag !== undefined && { tag: request.tag }),
      versionAtSend: context.version,
      lateMs: Math.max(0, context.late),
      status: 0,
      ttfbMs: Number.NaN,
      bytes: 0,
      aborted: false,
      wrong: false,
    };
    let settled = false;
    const finish = (problem?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (problem !== undefined && result.problem === undefined) result.problem = problem;
      resolve(result);
    };
    const headers: Record<string, string> = request.range === undefined ? {} : { range: request.range };
    const outgoing = httpRequest(`${base}${request.path}`, { method, agent, headers }, (response) => {
      result.reusedConnection = outgoing.reusedSocket;
      result.ttfbMs = performance.now() - sent;
      result.status = response.statusCode ?? 0;
      readHeaders(result, response.headers);
      const check = expectation(request, context, result, response.headers);
      if (typeof check === 'string') {
        result.wrong = result.status < 500;
        result.problem = check;
      }
      response.on('data', (chunk: Buffer) => {
        if (typeof check !== 'string' && !result.wrong && !check.content.matches(check.start + result.bytes, chunk)) {
          result.wrong = true;
          result.problem = `bytes differ from version ${result.versionServed} within ${check.start + result.bytes}–${check.start + result.bytes + chunk.length - 1}`;
        }
        result.bytes += chunk.length;
        if (request.abortAfter !== undefined && result.bytes >= request.abortAfter) {
          result.aborted = true;
          outgoing.destroy();
          finish();
        }
      });
      response.on('end', () => {
        const short = typeof check !== 'string' && method === 'GET' && result.bytes !== check.length;
        finish(short ? `${result.bytes} of ${typeof check === 'string' ? '?' : check.length} body bytes` : undefined);
      });
      response.on('error', (error) => finish(error.message));
      response.on('aborted', () => finish('the answer was cut'));
    });
    outgoing.on('error', (error) => {
      result.reusedConnection = outgoing.reusedSocket;
      finish(error.message);
    });
    outgoing.end();
    const timer = setTimeout(() => {
      outgoing.destroy();
      finish(`no end within ${REQUEST_TIMEOUT_MS} ms`);
    }, REQUEST_TIMEOUT_MS);
  });
}

function readHeaders(result: ReplayResult, headers: IncomingHttpHeaders): void {
  const cacheStatus = headers['cache-status'];
  const xCacheStatus = headers['x-cache-status'];
  if (typeof cacheStatus === 'string') result.cacheStatus = cacheStatus;
  if (typeof xCacheStatus === 'string') result.xCacheStatus = xCacheStatus;
  const version = etagVersion(headers.etag);
  if (version !== undefined) result.versionServed = version;
}

/**
 * What the body must be, from the request and the head: a 200 the whole object, a 206 exactly the range asked
 * (RFC 9110 §15.3.7), of the version the ETag names; a string says why the head itself is wrong.
 */
function expectation(
  request: TraceRequest,
  { size, content: book = COMPUTED_CONTENT }: SendContext,
  result: ReplayResult,
  headers: IncomingHttpHeaders,
): { content: ObjectContent; start: number; length: number } | string {
  if (result.status >= 500) return `status ${result.status}`;
  const version = result.versionServed;
  if (version === undefined) return `no ETag of the origin's (got ${headers.etag ?? 'none'})`;
  const content = book.of({ path: request.path, version }, size);
  const asked = singleRange(request.range, size);
  if (result.status === 200) {
    if (headers['content-length'] !== undefined && Number(headers['content-length']) !== size)
      return `a 200 of ${headers['content-length']} bytes for an object of ${size}`;
    return { content, start: 0, length: request.method === 'HEAD' ? 0 : size };
  }
  if (result.status === 206) {
    const sent = parseContentRange(headers['content-range']);
    if (typeof asked !== 'object' || sent?.start !== asked.start || sent.end !== asked.end || sent.size !== size)
      return `Content-Range ${headers['content-range']} for ${request.range ?? 'no range'} of ${size} bytes`;
    return { content, start: sent.start, length: sent.end - sent.start + 1 };
  }
  if (result.status === 416 && asked === 'unsatisfiable') return { content, start: 0, length: 0 };
  return `status ${result.status} for ${request.method} ${request.range ?? ''}`;
}
