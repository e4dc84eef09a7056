// A tier's record made around its handler (shared/observe/observed.ts) and told to its sinks
// (shared/observe/record-sinks.ts): fake sinks stand in for the stats Durable Object (recording
// the batches POSTed to it) and Analytics Engine (recording the points written). record-sinks.ts
// keeps one batch per isolate in module state: every test loads the modules afresh.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ObservabilityConfig } from '../../../shared/config/observability.ts';
import type { ObservedTier } from '../../../shared/observe/observed.ts';
import type { AnalyticsPoint, StatsSinks } from '../../../shared/observe/record-sinks.ts';
import type { StatsStoreNamespace } from '../../../shared/observe/stats-store-client.ts';
import type { StatsBatchJson } from '../../../shared/stats/store-protocol.ts';
import { STATS_SHARDS, shardName } from '../../../shared/stats/store-shards.ts';
import { type TierName, tier } from '../../../shared/tiers/tiers.ts';

const EDGE = tier('edge').statusMember;
const SHIELD = tier('shield').statusMember;

type ObservedModule = typeof import('../../../shared/observe/observed.ts');
type MeterModule = typeof import('../../../shared/observe/request-meter.ts');

let observed: ObservedModule['observed'];
let Meter: MeterModule['RequestMeter'];

/** Fresh modules: an empty batch, no flush made yet, none running. */
beforeEach(async () => {
  vi.resetModules();
  ({ observed } = await import('../../../shared/observe/observed.ts'));
  ({ RequestMeter: Meter } = await import('../../../shared/observe/request-meter.ts'));
  // Only Date is faked: durations are set by the test, promises and timers run as ever.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-12-01T12:00:00.000Z'));
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** The stats store's namespace, recording every batch POSTed to it; `answer` says how the store answers. */
function fakeStore(answer: () => Response | Promise<Response> = () => new Response(null, { status: 204 })) {
  const batches: StatsBatchJson[] = [];
  const calls: { name: unknown; url: string; method: string | undefined }[] = [];
  const namespace: StatsStoreNamespace = {
    idFromName: (name) => ({ name }),
    get: (id) => ({
      async fetch(url, init) {
        calls.push({ name: (id as { name: unknown }).name, url, method: init?.method });
        batches.push(JSON.parse(String(init?.body)) as StatsBatchJson);
        return answer();
      },
    }),
  };
  return {
    namespace,
    batches,
    calls,
    requests: () => batches.flatMap((batch) => batch.rows).reduce((sum, row) => sum + row.requests, 0),
  };
}

function fakeAnalytics() {
  const points: AnalyticsPoint[] = [];
  return { sink: { writeDataPoint: (point: AnalyticsPoint) => void points.push(point) }, points };
}

function observability(over: Partial<ObservabilityConfig> = {}): ObservabilityConfig {
  return { statsToken: undefined, flushMs: 0, logSample: 0, egressPricePerTB: 7, ...over };
}

function tierOf(sinks: StatsSinks, name: TierName = 'edge'): ObservedTier & { described: number } {
  const made = {
    tier: name,
    sinks,
    described: 0,
    describe(request: Request) {
      made.described += 1;
      const url = new URL(request.url);
      return { host: request.headers.get('host') ?? url.host, path: `${url.pathname}${url.search}` };
    },
  };
  return made;
}

/** The keepAlive of one request: every promise handed to it, to await at the end. */
function keeper() {
  const kept: Promise<unknown>[] = [];
  return {
    kept,
    keepAlive: (promise: Promise<unknown>) => void kept.push(promise),
    /** Waits for everything handed over so far, and anything handed over meanwhile. */
    async drained(): Promise<void> {
      let seen = 0;
      while (seen < kept.length) {
        const batch = kept.slice(seen);
        seen = kept.length;
        await Promise.all(batch);
      }
    },
  };
}

function response(status: number, cacheStatus: string | undefined, length: number | undefined): Response {
  const headers = new Headers();
  if (cacheStatus !== undefined) headers.set('cache-status', cacheStatus);
  if (length !== undefined) headers.set('content-length', String(length));
  const body = status === 304 || status === 204 || length === undefined ? null : 'x'.repeat(length);
  return new Response(body, { status, headers });
}

const request = (path = '/dir/object.bin?q=1', init?: RequestInit): Request =>
  new Request(`https://cdn.example${path}`, init);

describe('observed: one record per request', () => {
  it('makes one record with the outcome and bytes its Cache-Status member and framing say', async () => {
    const store = fakeStore();
    const analytics = fakeAnalytics();
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const tier = tierOf({ observability: observability(), store: store.namespace, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    meter.fetched(1234, true);
    const answer = response(200, `${EDGE}; fwd=uri-miss; stored`, 1234);
    expect(observed(request(), answer, meter, tier, keepAlive)).toBe(answer);
    await drained();
    expect(analytics.points).toHaveLength(1);
    expect(analytics.points[0]?.blobs.slice(0, 2)).toEqual(['edge', 'miss']);
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]?.rows).toEqual([
      expect.objectContaining({
        tier: 'edge',
        host: 'cdn.example',
        outcome: 'miss',
        requests: 1,
        bytesSent: 1234,
        bytesFromNextHop: 1234,
        bytesFromOrigin: 1234,
      }),
    ]);
    // An edge miss names its key, without the query.
    expect(store.batches[0]?.misses).toEqual([expect.objectContaining({ key: '/dir/object.bin', misses: 1 })]);
    // An isolate's first flush goes to the shard its chance picks (Math.random 0: shard 0, the single store's name).
    expect(store.calls).toEqual([
      { name: 'tiercache-stats', url: 'https://stats.tiercache.internal/batch', method: 'POST' },
    ]);
  });

  it("sends each of an isolate's flushes to the next shard of the store, from the one its chance picks", async () => {
    vi.spyOn(Math, 'random').mockReturnValue(14.5 / STATS_SHARDS);
    const store = fakeStore();
    const tier = tierOf({ observability: observability(), store: store.namespace, analytics: undefined });
    for (let i = 0; i < 3; i++) {
      const { keepAlive, drained } = keeper();
      observed(request(), response(200, `${EDGE}; hit`, 10), new Meter(Date.now(), keepAlive), tier, keepAlive);
      await drained();
    }
    expect(store.calls.map((call) => call.name)).toEqual([shardName(14), shardName(15), shardName(0)]);
    expect(store.requests()).toBe(3);
  });

  it("reads only its own tier's member: the shield's hit is the edge's miss", async () => {
    const analytics = fakeAnalytics();
    const { keepAlive, drained } = keeper();
    const both = `${SHIELD}; hit, ${EDGE}; fwd=uri-miss; stored`;
    observed(
      request(),
      response(200, both, 10),
      new Meter(Date.now(), keepAlive),
      tierOf({ observability: observability(), store: undefined, analytics: analytics.sink }),
      keepAlive,
    );
    observed(
      request(),
      response(200, both, 10),
      new Meter(Date.now(), keepAlive),
      tierOf({ observability: observability(), store: undefined, analytics: analytics.sink }, 'shield'),
      keepAlive,
    );
    await drained();
    expect(analytics.points.map((point) => point.blobs.slice(0, 2))).toEqual([
      ['edge', 'miss'],
      ['shield', 'hit'],
    ]);
  });

  it('waits for a handler that answers later, and records once', async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    const answer = response(304, `${EDGE}; fwd=stale; fwd-status=304`, undefined);
    const made = observed(request(), Promise.resolve(answer), meter, tier, keepAlive);
    expect(made).toBeInstanceOf(Promise);
    expect(await made).toBe(answer);
    await drained();
    expect(analytics.points.map((point) => [point.blobs[1], point.doubles[0], point.doubles[1]])).toEqual([
      ['revalidated', 304, 0],
    ]);
  });

  it('a handler that throws is not recorded here, and its error passes', async () => {
    const analytics = fakeAnalytics();
    const { keepAlive, drained } = keeper();
    const made = observed(
      request(),
      Promise.reject(new Error('boom')),
      new Meter(Date.now(), keepAlive),
      tierOf({ observability: observability(), store: undefined, analytics: analytics.sink }),
      keepAlive,
    );
    await expect(made).rejects.toThrow('boom');
    await drained();
    expect(analytics.points).toEqual([]);
  });

  it('counts a memory hit (meter.hit) as a hit from what the hot path knows, reading no header', async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const hit = new Meter(Date.now(), keepAlive);
    hit.hit = { host: 'CDN.example', path: '/logo.png?v=2', bytes: 50 };
    observed(request(), response(200, undefined, 999), hit, tier, keepAlive);
    // The same response without it is a tier's own refusal.
    observed(request(), response(200, undefined, 50), new Meter(Date.now(), keepAlive), tier, keepAlive);
    await drained();
    expect(analytics.points.map((point) => point.blobs.slice(1, 3))).toEqual([
      ['hit', ''],
      ['bypass', 'refused'],
    ]);
    expect(analytics.points[0]?.blobs[3]).toBe('cdn.example');
    expect(analytics.points[0]?.blobs[4]).toBe('/logo.png');
    expect(analytics.points[0]?.doubles[1]).toBe(50);
    expect(tier.described).toBe(1);
  });

  it('never records an internal request, not even a 5xx', async () => {
    const store = fakeStore();
    const analytics = fakeAnalytics();
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const tier = tierOf({
      observability: observability({ logSample: 1 }),
      store: store.namespace,
      analytics: analytics.sink,
    });
    const { keepAlive, drained, kept } = keeper();
    for (const status of [200, 401, 500]) {
      const meter = new Meter(Date.now(), keepAlive);
      meter.internal = true;
      observed(request('/__tiercache/stats.json'), response(status, undefined, 10), meter, tier, keepAlive);
    }
    await drained();
    expect([analytics.points, store.batches, kept, log.mock.calls]).toEqual([[], [], [], []]);
    expect(tier.described).toBe(0);
  });
});

describe('observed: the record waits for the work the request left running', () => {
  it('counts bytes fetched after the response, and the duration to the end of that work', async () => {
    const analytics = fakeAnalytics();
    const store = fakeStore();
    const tier = tierOf({ observability: observability(), store: store.namespace, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    let finishFill!: () => void;
    meter.hold(new Promise<void>((resolve) => (finishFill = resolve)));
    vi.advanceTimersByTime(30);
    const answer = response(200, `${EDGE}; fwd=uri-miss; stored`, 400);
    // The response is never held for the record.
    expect(observed(request(), answer, meter, tier, keepAlive)).toBe(answer);
    await Promise.resolve();
    expect(analytics.points).toEqual([]);
    // The fill goes on after the response: its bytes, and the time it took, belong to the request.
    meter.fetched(400, true);
    vi.advanceTimersByTime(70);
    finishFill();
    await drained();
    expect(analytics.points).toHaveLength(1);
    const [, , bytesFromNextHop, bytesFromOrigin, ttfbMs, durationMs] = analytics.points[0]?.doubles ?? [];
    expect({ bytesFromNextHop, bytesFromOrigin, ttfbMs, durationMs }).toEqual({
      bytesFromNextHop: 400,
      bytesFromOrigin: 400,
      ttfbMs: 30,
      durationMs: 100,
    });
    expect(store.requests()).toBe(1);
  });

  it('waits for nested holds and rejected work, and records once', async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), (promise) => void promise.catch(() => {}));
    let releaseInner!: () => void;
    const inner = new Promise<void>((resolve) => (releaseInner = resolve)).then(() => meter.fetched(7, false));
    meter.hold(
      Promise.reject(new Error('store failed'))
        .catch(() => meter.hold(inner))
        .then(() => {
          throw new Error('still failed');
        }),
    );
    observed(request(), response(200, `${EDGE}; hit`, 7), meter, tier, keepAlive);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(analytics.points).toEqual([]);
    releaseInner();
    await drained();
    expect(analytics.points.map((point) => point.doubles[2])).toEqual([7]);
    expect(analytics.points[0]?.doubles[5]).toBeGreaterThanOrEqual(analytics.points[0]?.doubles[4] ?? Number.NaN);
  });
});

describe('observed: a client that went away before the body ended', () => {
  it("waits for the body's end where it is heard, outside the duration, and counts the request as departed", async () => {
    const store = fakeStore();
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: store.namespace, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    let end!: (outcome: { departed: boolean }) => void;
    meter.bodyEnded = new Promise((resolve) => (end = resolve));
    vi.advanceTimersByTime(5);
    observed(request('/big.bin'), response(206, `${EDGE}; hit; detail="slices 2/2 of 9"`, 100), meter, tier, keepAlive);
    await Promise.resolve();
    // Not counted while the body is going out: whether its client stays is not known yet.
    expect(analytics.points).toEqual([]);
    vi.advanceTimersByTime(500);
    end({ departed: true });
    await drained();
    expect(analytics.points.map((point) => [point.blobs[1], point.doubles[5], point.doubles[8]])).toEqual([
      ['hit', 5, 1],
    ]);
    expect(store.batches.flatMap((batch) => batch.rows).map((row) => [row.requests, row.departed])).toEqual([[1, 1]]);
  });

  it('counts a body that ended with its client still there as not departed', async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    meter.bodyEnded = Promise.resolve({ departed: false });
    observed(request('/big.bin'), response(200, `${EDGE}; hit`, 100), meter, tier, keepAlive);
    await drained();
    expect(analytics.points.map((point) => point.doubles[8])).toEqual([0]);
  });

  it("counts a client that went before the head (the request's signal aborted) as departed, whole body or not", async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const left = new AbortController();
    const meter = new Meter(Date.now(), keepAlive);
    let done!: () => void;
    meter.hold(new Promise<void>((resolve) => (done = resolve)));
    observed(
      request('/a.txt', { signal: left.signal }),
      response(200, `${EDGE}; fwd=uri-miss`, 10),
      meter,
      tier,
      keepAlive,
    );
    left.abort();
    done();
    await drained();
    expect(analytics.points.map((point) => point.doubles[8])).toEqual([1]);
  });

  it("is counted when the request's signal aborts, even if the body's end is never heard (the runtime dropped it)", async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const left = new AbortController();
    const meter = new Meter(Date.now(), keepAlive);
    meter.bodyEnded = new Promise(() => undefined);
    observed(request('/big.bin', { signal: left.signal }), response(206, `${EDGE}; hit`, 100), meter, tier, keepAlive);
    await Promise.resolve();
    expect(analytics.points).toEqual([]);
    left.abort();
    await drained();
    expect(analytics.points.map((point) => point.doubles[8])).toEqual([1]);
  });

  it('prints no line for a departed client unless sampled (LOG_SAMPLE): it is no error', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { keepAlive, drained } = keeper();
    for (const logSample of [0, 1]) {
      const tier = tierOf({ observability: observability({ logSample }), store: undefined, analytics: undefined });
      const meter = new Meter(Date.now(), keepAlive);
      meter.bodyEnded = Promise.resolve({ departed: true });
      observed(request(`/sample-${logSample}`), response(206, `${EDGE}; fwd=uri-miss`, 100), meter, tier, keepAlive);
    }
    await drained();
    const lines = log.mock.calls.map((call) => JSON.parse(String(call[0])) as { keyPrefix: string; departed: boolean });
    expect(lines.map((line) => [line.keyPrefix, line.departed])).toEqual([['/sample-1', true]]);
  });
});

describe('observed: bytes sent by a body without a Content-Length', () => {
  it('counts them as they pass, once the body is through (chunked: the framing says nothing)', async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        c.enqueue(new Uint8Array(700));
        c.enqueue(new Uint8Array(2300));
        c.close();
      },
    });
    const sent = await observed(
      request(),
      new Response(body, { headers: { 'cache-status': `${EDGE}; fwd=uri-miss; stored` } }),
      meter,
      tier,
      keepAlive,
    );
    await Promise.resolve();
    expect(analytics.points).toEqual([]);
    expect((await sent.arrayBuffer()).byteLength).toBe(3000);
    await drained();
    expect(analytics.points.map((point) => [point.blobs[1], point.doubles[1]])).toEqual([['miss', 3000]]);
  });

  it('a transfer cut part-way counts what was sent before the cut', async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>(
      { pull: (c) => (pulls++ === 0 ? c.enqueue(new Uint8Array(512)) : c.error(new Error('origin reset'))) },
      { highWaterMark: 0 },
    );
    const sent = await observed(
      request(),
      new Response(body, { headers: { 'cache-status': `${EDGE}; fwd=uri-miss` } }),
      new Meter(Date.now(), keepAlive),
      tier,
      keepAlive,
    );
    await expect(sent.arrayBuffer()).rejects.toThrow();
    await drained();
    expect(analytics.points.map((point) => point.doubles[1])).toEqual([512]);
  });
});

describe('observed: a slice the edge read ahead is one shield request (the warm, then the copy)', () => {
  const shieldTier = () => {
    const analytics = fakeAnalytics();
    const store = fakeStore();
    return {
      analytics,
      store,
      tier: tierOf({ observability: observability(), store: store.namespace, analytics: analytics.sink }, 'shield'),
    };
  };
  /** The warm's answer: its word, no length, the slice's report. */
  const warmAnswer = (report: string): Response =>
    new Response('stored 1000', {
      headers: { 'content-type': 'text/plain', 'cache-status': `${SHIELD}; ${report}` },
    });

  it('the warm that stored the slice carries the record: what it found and fetched, and as sent the slice it stored', async () => {
    const { analytics, store, tier } = shieldTier();
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    meter.readAhead = 'warm';
    meter.fetched(1000, true);
    meter.bytesSent = 1000;
    const answer = warmAnswer('fwd=partial; stored; detail="slices 0/1"');
    // Its body is the protocol's word, passed as it is, never counted as the object's bytes.
    expect(observed(request('/__tiercache/slices/1-1~/1000/%22v1%22/big.bin'), answer, meter, tier, keepAlive)).toBe(
      answer,
    );
    await drained();
    expect(
      analytics.points.map((point) => [point.blobs[1], ...point.doubles.slice(1, 4), ...point.doubles.slice(6)]),
    ).toEqual([['miss', 1000, 1000, 1000, 0, 1, 0]]);
    expect(store.requests()).toBe(1);
  });

  it('the copy answered from what the warm stored is not counted again; a copy that fetched anew is', async () => {
    const { analytics, store, tier } = shieldTier();
    const { keepAlive, drained } = keeper();
    const hit = new Meter(Date.now(), keepAlive);
    hit.readAhead = 'copy';
    observed(
      request('/__tiercache/slices/1-1/1000/%22v1%22/big.bin'),
      response(200, `${SHIELD}; hit; detail="slices 1/1"`, 1000),
      hit,
      tier,
      keepAlive,
    );
    const refetched = new Meter(Date.now(), keepAlive);
    refetched.readAhead = 'copy';
    refetched.fetched(1000, true);
    observed(
      request('/__tiercache/slices/1-1/1000/%22v1%22/big.bin'),
      response(200, `${SHIELD}; fwd=partial; stored; detail="slices 0/1"`, 1000),
      refetched,
      tier,
      keepAlive,
    );
    await drained();
    expect(analytics.points.map((point) => [point.blobs[1], point.doubles[1], point.doubles[3]])).toEqual([
      ['miss', 1000, 1000],
    ]);
    expect(store.requests()).toBe(1);
  });

  it('a warm that stored nothing and fetched nothing is not counted (the edge reads that slice as it comes, counted then)', async () => {
    const { analytics, tier } = shieldTier();
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    meter.readAhead = 'warm';
    observed(request(), warmAnswer('hit; detail="slices 0/0 of 1"'), meter, tier, keepAlive);
    await drained();
    expect(analytics.points).toEqual([]);
  });
});

describe('observed: with every sink off', () => {
  const silent = (): StatsSinks => ({
    observability: observability({ logSample: 0 }),
    store: undefined,
    analytics: undefined,
  });

  it('makes nothing at all for an answer below 500', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const tier = tierOf(silent());
    const { keepAlive, kept } = keeper();
    for (const status of [200, 206, 304, 404, 499]) {
      const meter = new Meter(Date.now(), () => {});
      meter.hold(new Promise(() => {})); // held work never settling: not even waited for
      const answer = response(status, `${EDGE}; fwd=uri-miss`, status === 304 ? undefined : 3);
      expect(observed(request(), answer, meter, tier, keepAlive)).toBe(answer);
    }
    expect([kept, log.mock.calls, tier.described]).toEqual([[], [], 0]);
  });

  it('still logs a 5xx, as one JSON line naming its tier', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    observed(
      request('/busy.txt'),
      response(503, `${EDGE}; fwd=miss; fwd-status=503; detail=origin-busy`, 20),
      meter,
      tierOf(silent()),
      keepAlive,
    );
    await drained();
    expect(log).toHaveBeenCalledTimes(1);
    const line = JSON.parse(String(log.mock.calls[0]?.[0])) as Record<string, unknown>;
    expect(line).toMatchObject({
      tiercache: 'edge',
      tier: 'edge',
      outcome: 'error',
      reason: 'origin-busy',
      status: 503,
      keyPrefix: '/busy.txt',
      host: 'cdn.example',
    });
  });
});

describe('tellRecord: the log line', () => {
  it('logs every record with LOG_SAMPLE 1, errors only with 0', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const analytics = fakeAnalytics();
    const { keepAlive, drained } = keeper();
    const sampled = tierOf({
      observability: observability({ logSample: 1 }),
      store: undefined,
      analytics: analytics.sink,
    });
    const unsampled = tierOf({
      observability: observability({ logSample: 0 }),
      store: undefined,
      analytics: analytics.sink,
    });
    observed(request('/a'), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), sampled, keepAlive);
    observed(request('/b'), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), unsampled, keepAlive);
    observed(request('/c'), response(502, undefined, 1), new Meter(Date.now(), keepAlive), unsampled, keepAlive);
    await drained();
    expect(log.mock.calls.map((call) => (JSON.parse(String(call[0])) as { keyPrefix: string }).keyPrefix)).toEqual([
      '/a',
      '/c',
    ]);
    expect(analytics.points).toHaveLength(3);
  });
});

describe('tellRecord: the Analytics Engine point', () => {
  it('is index1 the host; blobs tier, outcome, reason, host, key prefix, method, whole|sliced; doubles status, bytes, TTFB, duration, slices, departed', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    const { keepAlive, drained } = keeper();
    const sliced = new Meter(Date.now(), keepAlive);
    sliced.fetched(2000, false);
    let done!: () => void;
    sliced.hold(new Promise<void>((resolve) => (done = resolve)));
    vi.advanceTimersByTime(12);
    observed(
      request('/video/Movie.mp4?token=secret', { headers: { host: 'CDN.Example.com:8443' } }),
      response(206, `${EDGE}; hit; detail="slices 3/4 of 9"`, 1000),
      sliced,
      tier,
      keepAlive,
    );
    vi.advanceTimersByTime(8);
    done();
    const failed = new Meter(Date.now(), keepAlive);
    observed(
      request('/busy.txt', { method: 'HEAD' }),
      response(503, `${EDGE}; fwd=miss; fwd-status=503; detail=origin-busy`, undefined),
      failed,
      tier,
      keepAlive,
    );
    await drained();
    // The failed request had no work left running: it is counted first, the sliced one once its work settled.
    expect(analytics.points).toEqual([
      {
        indexes: ['cdn.example'],
        blobs: ['edge', 'error', 'origin-busy', 'cdn.example', '/busy.txt', 'HEAD', 'whole'],
        doubles: [503, 0, 0, 0, 0, 0, 0, 0, 0],
      },
      {
        indexes: ['cdn.example.com:8443'],
        blobs: ['edge', 'hit', '', 'cdn.example.com:8443', '/video/Movie.mp4', 'GET', 'sliced'],
        doubles: [206, 1000, 2000, 0, 12, 20, 3, 1, 0],
      },
    ]);
  });

  it('never carries a hostile host or an overlong path as sent', async () => {
    const analytics = fakeAnalytics();
    const tier = tierOf({ observability: observability(), store: undefined, analytics: analytics.sink });
    tier.describe = () => ({ host: '<script>alert(1)</script>', path: `/${'a'.repeat(500)}?secret=1` });
    const { keepAlive, drained } = keeper();
    observed(request(), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), tier, keepAlive);
    await drained();
    const point = analytics.points[0];
    expect(point?.indexes).toEqual(['(invalid)']);
    expect(point?.blobs[3]).toBe('(invalid)');
    expect(point?.blobs[4]).toBe(`/${'a'.repeat(95)}`);
  });
});

describe('tellRecord: flushes to the stats store', () => {
  it('with STATS_FLUSH_MS 0, every record reaches the store, however they arrive', async () => {
    const store = fakeStore();
    const tier = tierOf({ observability: observability({ flushMs: 0 }), store: store.namespace, analytics: undefined });
    const { keepAlive, drained } = keeper();
    // Five at once (while the first flush runs), then three one after another.
    for (let i = 0; i < 5; i++)
      observed(
        request(`/burst/${i}`),
        response(200, `${EDGE}; fwd=uri-miss`, 10),
        new Meter(Date.now(), keepAlive),
        tier,
        keepAlive,
      );
    await drained();
    expect(store.requests()).toBe(5);
    for (let i = 0; i < 3; i++) {
      observed(
        request(`/one/${i}`),
        response(200, `${EDGE}; hit`, 10),
        new Meter(Date.now(), keepAlive),
        tier,
        keepAlive,
      );
      await drained();
      expect(store.requests()).toBe(6 + i);
    }
    // One flush at a time: never more batches than records, every record in exactly one.
    expect(store.batches.length).toBeLessThanOrEqual(8);
    expect(store.batches.flatMap((batch) => batch.misses).reduce((sum, miss) => sum + miss.misses, 0)).toBe(5);
    expect(store.batches.flatMap((batch) => batch.rows).reduce((sum, row) => sum + row.bytesSent, 0)).toBe(80);
  });

  it('flushes records that settle late too, once their work is done', async () => {
    const store = fakeStore();
    const tier = tierOf({ observability: observability({ flushMs: 0 }), store: store.namespace, analytics: undefined });
    const { keepAlive, drained } = keeper();
    const meter = new Meter(Date.now(), keepAlive);
    let done!: () => void;
    meter.hold(new Promise<void>((resolve) => (done = resolve)));
    observed(request(), response(200, `${EDGE}; fwd=uri-miss`, 10), meter, tier, keepAlive);
    await Promise.resolve();
    expect(store.batches).toEqual([]);
    done();
    await drained();
    expect(store.requests()).toBe(1);
  });

  it('flushes a record whose request came before the last flush but settled after it (due by now, not by arrival)', async () => {
    const store = fakeStore();
    const tier = tierOf({ observability: observability({ flushMs: 0 }), store: store.namespace, analytics: undefined });
    const { keepAlive, drained } = keeper();
    // A arrives and holds a long fill; B arrives later and is flushed; then A settles.
    const slow = new Meter(Date.now(), keepAlive);
    let done!: () => void;
    slow.hold(new Promise<void>((resolve) => (done = resolve)));
    observed(request('/slow'), response(200, `${EDGE}; fwd=uri-miss`, 10), slow, tier, keepAlive);
    vi.advanceTimersByTime(10);
    observed(request('/quick'), response(200, `${EDGE}; hit`, 10), new Meter(Date.now(), keepAlive), tier, keepAlive);
    // (Not drained(): the slow request's work is still held.)
    await vi.waitFor(() => expect(store.requests()).toBe(1));
    vi.advanceTimersByTime(90);
    done();
    await drained();
    expect(store.requests()).toBe(2);
  });

  it('a forced flush (the stats page) waits for the interval flush under way, then sends what arrived meanwhile', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const store = fakeStore(async () => {
      if (first) {
        first = false;
        await gate;
      }
      return new Response(null, { status: 204 });
    });
    const tier = tierOf({
      observability: observability({ flushMs: 60_000 }),
      store: store.namespace,
      analytics: undefined,
    });
    const { keepAlive } = keeper();
    observed(request('/a'), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), tier, keepAlive);
    observed(request('/b'), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), tier, keepAlive);
    const { flushStats } = await import('../../../shared/observe/record-sinks.ts');
    const forced = flushStats(store.namespace, 0);
    release();
    await forced;
    // Both records are at the store by the time the forced flush is done (the scheduled one finds nothing left).
    expect(store.batches.map((batch) => batch.rows.reduce((sum, row) => sum + row.requests, 0))).toEqual([1, 1]);
  });

  it('with a long STATS_FLUSH_MS, the first flush goes at once, later records when the interval ends, even with no request after them', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout'] });
    vi.setSystemTime(new Date('2026-12-01T12:00:00.000Z'));
    const store = fakeStore();
    const tier = tierOf({
      observability: observability({ flushMs: 60_000 }),
      store: store.namespace,
      analytics: undefined,
    });
    const { keepAlive, kept } = keeper();
    const send = (path: string): void =>
      void observed(
        request(path),
        response(200, `${EDGE}; hit`, 10),
        new Meter(Date.now(), keepAlive),
        tier,
        keepAlive,
      );
    send('/first');
    await vi.advanceTimersByTimeAsync(0);
    expect(store.requests()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    send('/second');
    await vi.advanceTimersByTimeAsync(58_000);
    send('/third');
    // Both wait for the interval: one flush is set for its end, not one per record.
    expect([store.batches.length, kept.length]).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.batches.length).toBe(2);
    expect(store.batches[1]?.rows.reduce((sum, row) => sum + row.requests, 0)).toBe(2);
    // Nothing left: no more flushes.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(store.batches.length).toBe(2);
  });

  it('while one flush runs, no second one starts; it drains what arrived once due', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const store = fakeStore(async () => {
      await gate;
      return new Response(null, { status: 204 });
    });
    const tier = tierOf({
      observability: observability({ flushMs: 100 }),
      store: store.namespace,
      analytics: undefined,
    });
    const { keepAlive, drained, kept } = keeper();
    observed(request('/a'), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), tier, keepAlive);
    expect(kept).toHaveLength(1);
    // Past the interval while the first flush is still waiting for the store: no second flush.
    vi.advanceTimersByTime(500);
    observed(request('/b'), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), tier, keepAlive);
    observed(request('/c'), response(200, `${EDGE}; hit`, 1), new Meter(Date.now(), keepAlive), tier, keepAlive);
    // One flush set for later (after the one under way), not one per record.
    expect(kept).toHaveLength(2);
    expect(store.batches).toHaveLength(1);
    // The first flush took longer than the interval: it goes on with what arrived meanwhile.
    release();
    await drained();
    expect(store.batches.map((batch) => batch.rows.reduce((sum, row) => sum + row.requests, 0))).toEqual([1, 2]);
  });
});

describe('tellRecord: a failing store', () => {
  for (const [name, answer] of [
    ['answers 500', async () => new Response('the store is down', { status: 500 })],
    ['throws', async () => Promise.reject(new Error('network connection lost'))],
  ] as const) {
    it(`a store that ${name} loses that batch with a console.error, never throwing into the request`, async () => {
      const error = vi.spyOn(console, 'error').mockImplementation(() => {});
      let failing = true;
      const store = fakeStore(() => (failing ? answer() : new Response(null, { status: 204 })));
      const tier = tierOf({
        observability: observability({ flushMs: 0 }),
        store: store.namespace,
        analytics: undefined,
      });
      const { keepAlive, drained } = keeper();
      const first = response(200, `${EDGE}; hit`, 5);
      expect(observed(request('/lost'), first, new Meter(Date.now(), keepAlive), tier, keepAlive)).toBe(first);
      await expect(drained()).resolves.toBeUndefined();
      expect(error).toHaveBeenCalledTimes(1);
      expect(String(error.mock.calls[0]?.[0])).toMatch(
        name === 'throws'
          ? /cannot reach the store \(network connection lost\); 1 rows lost/
          : /the store answered 500; 1 rows lost/,
      );
      // The lost batch is not sent again; the next one goes.
      failing = false;
      observed(request('/kept'), response(200, `${EDGE}; hit`, 5), new Meter(Date.now(), keepAlive), tier, keepAlive);
      await drained();
      expect(store.batches).toHaveLength(2);
      expect(store.batches[1]?.rows.reduce((sum, row) => sum + row.requests, 0)).toBe(1);
      expect(error).toHaveBeenCalledTimes(1);
    });
  }

  it('a namespace that throws on get is a lost batch too, not a failed request', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const namespace: StatsStoreNamespace = {
      idFromName: (name) => name,
      get: () => {
        throw new Error('no such binding');
      },
    };
    const tier = tierOf({ observability: observability({ flushMs: 0 }), store: namespace, analytics: undefined });
    const { keepAlive, drained } = keeper();
    const answer = response(200, `${EDGE}; hit`, 5);
    expect(observed(request(), answer, new Meter(Date.now(), keepAlive), tier, keepAlive)).toBe(answer);
    await expect(drained()).resolves.toBeUndefined();
    expect(String(error.mock.calls[0]?.[0])).toMatch(/cannot reach the store \(no such binding\); 1 rows lost/);
  });
});
