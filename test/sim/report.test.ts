// The sim's report, pure: which tier answered (RFC 9211 Cache-Status as tiercache writes it; the baselines'
// X-Cache-Status; n/a where nothing says), the unique bytes asked, the cold crowd's cost per slice, the access-log
// converter, and the summary line in the form scripts read.
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../bench/report/results.ts';
import { heldOneIn } from '../../bench/sim/origin-endpoints.ts';
import { pathTaken, tierVerdict } from '../../bench/sim/report/cache-verdict.ts';
import { crowdCost } from '../../bench/sim/report/crowd.ts';
import { endpointSummary, spread } from '../../bench/sim/report/endpoint-summary.ts';
import { hedgePairs } from '../../bench/sim/report/hedge-pairs.ts';
import { uniqueRequestedBytes } from '../../bench/sim/report/requested-bytes.ts';
import { prefetchPairs, segmentSummary } from '../../bench/sim/report/segment-summary.ts';
import { segmentSections } from '../../bench/sim/report/segment-tables.ts';
import type { SimReport, SystemSummary } from '../../bench/sim/report/sim-report.ts';
import { summaryLine } from '../../bench/sim/report/sim-tables.ts';
import { simTargets } from '../../bench/sim/report/sim-targets.ts';
import { tierRatios } from '../../bench/sim/report/tier-ratios.ts';
import { convertLog } from '../../bench/sim/workload/log-convert.ts';

describe('an origin at several endpoints (--slow-endpoint)', () => {
  const miss = 'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=uri-miss; stored';
  const counts = (gaveUp: number, gaveUpBytes: number, heldPaths: string[] = []) => ({
    requests: 10,
    held: 2,
    heldPaths,
    bytes: 1000,
    gaveUp,
    gaveUpBytes,
  });
  const sample = (index: number, path: string, ttfbMs: number, cacheStatus = miss) => ({
    index,
    path,
    location: 0,
    bytes: 1,
    cacheStatus,
    ttfbMs,
  });

  it("takes the misses' first bytes alone, and the hedges' egress both as the endpoints passed it and as the origin sent it", () => {
    const samples = [
      ...Array.from({ length: 10 }, (_, i) => sample(i, `/o/${i}`, (i + 1) * 100)),
      sample(10, '/o/1', 5_000, 'tiercache-edge; hit'),
      sample(11, '/o/2', Number.NaN),
    ];
    expect(endpointSummary(samples, [counts(1, 50, ['/o/9', '/o/8']), counts(0, 0)], 2_000, 1_900)).toEqual({
      misses: { count: 10, p50: 500, p90: 900, p99: 1000 },
      heldMisses: { count: 2, p50: 900, p90: 1000, p99: 1000 },
      otherMisses: { count: 8, p50: 400, p90: 800, p99: 800 },
      endpoints: [counts(1, 50, ['/o/9', '/o/8']), counts(0, 0)],
      gaveUpBytes: 50,
      gaveUpShare: 0.025,
      beyondUniqueShare: 0.05,
    });
  });

  it('is absent on one endpoint', () => {
    expect(endpointSummary([], undefined, 1, 1)).toBeUndefined();
  });

  it('pairs the misses of both runs by their trace index, and counts those a hedge made sooner apart from noise', () => {
    const off = [
      sample(0, '/held', 600),
      sample(1, '/held', 650),
      sample(2, '/plain', 100),
      sample(3, '/plain', 120),
      sample(4, '/plain', 90, 'tiercache-edge; hit'),
      sample(5, '/only-off', 700),
    ];
    const on = [
      sample(0, '/held', 250),
      sample(1, '/held', 640),
      sample(2, '/plain', 260),
      sample(3, '/plain', 110),
      sample(4, '/plain', 900),
    ];
    const pairs = hedgePairs(off, on, new Set(['/held']));
    expect(pairs.all).toMatchObject({ off: { count: 4, p99: 650 }, on: { count: 4, p99: 640 }, sooner: 1, later: 1 });
    expect(pairs.held).toMatchObject({ off: { count: 2, p50: 600 }, on: { count: 2, p50: 250 }, sooner: 1, later: 0 });
  });

  it('holds one answer in five by what it asks, the same answers in every run, whatever order they come in', () => {
    const held = heldOneIn(5);
    const asks = Array.from({ length: 5_000 }, (_, i) => ({
      n: i,
      method: i % 7 === 0 ? 'HEAD' : 'GET',
      path: `/v/${i % 500}.mp4`,
      range: i % 3 === 0 ? undefined : `bytes=${i * 8}-${i * 8 + 7}`,
    }));
    const picked = asks.filter(held).length;
    expect(picked / asks.length).toBeGreaterThan(0.17);
    expect(picked / asks.length).toBeLessThan(0.23);
    const shuffled = asks.map((ask, i) => ({ ...ask, n: asks.length - i }));
    expect(shuffled.map(held)).toEqual(asks.map(held));
  });
});

describe('which tier answered', () => {
  it('RFC 9211: an edge hit, a shield hit and a miss as tiercache says them', () => {
    expect(pathTaken(tierVerdict({ cacheStatus: 'tiercache-edge; hit; ttl=80' }))).toBe('hit');
    expect(
      pathTaken(tierVerdict({ cacheStatus: 'tiercache-shield; hit; ttl=86000, tiercache-edge; fwd=miss; stored' })),
    ).toBe('shield-hit');
    expect(
      pathTaken(tierVerdict({ cacheStatus: 'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=miss' })),
    ).toBe('miss');
  });

  it("reads the baselines' members named <cache>-edge and <cache>-shield the same way", () => {
    expect(pathTaken(tierVerdict({ cacheStatus: 'varnish-shield; fwd=miss, varnish-edge; hit' }))).toBe('hit');
    expect(pathTaken(tierVerdict({ cacheStatus: 'nginx-shield; hit, nginx-edge; fwd=miss' }))).toBe('shield-hit');
    expect(pathTaken(tierVerdict({ cacheStatus: 'varnish-shield; fwd=miss, varnish-edge; fwd=miss' }))).toBe('miss');
  });

  it('an edge miss whose shield said nothing is forwarded, not guessed', () => {
    expect(pathTaken(tierVerdict({ cacheStatus: 'tiercache-edge; fwd=miss' }))).toBe('forwarded');
  });

  it("reads the baselines' X-Cache-Status: the edge's value last, the shield's before it", () => {
    expect(pathTaken(tierVerdict({ xCacheStatus: 'HIT' }))).toBe('hit');
    expect(pathTaken(tierVerdict({ xCacheStatus: 'MISS' }))).toBe('forwarded');
    expect(pathTaken(tierVerdict({ xCacheStatus: 'HIT, MISS' }))).toBe('shield-hit');
    expect(pathTaken(tierVerdict({ xCacheStatus: 'MISS, MISS' }))).toBe('miss');
  });

  it('says unknown when no header tells', () => {
    expect(pathTaken(tierVerdict({}))).toBe('unknown');
    expect(pathTaken(tierVerdict({ cacheStatus: 'other-cache; hit', xCacheStatus: 'maybe' }))).toBe('unknown');
  });

  it('ratios per tier: the shield over the edge misses only, n/a where nothing told', () => {
    const [, all] = tierRatios(
      [
        { location: 0, bytes: 100, cacheStatus: 'tiercache-edge; hit' },
        { location: 0, bytes: 300, cacheStatus: 'tiercache-shield; hit, tiercache-edge; fwd=miss' },
        { location: 0, bytes: 600, cacheStatus: 'tiercache-shield; fwd=miss, tiercache-edge; fwd=miss' },
        { location: 0, bytes: 5 },
      ],
      1,
    );
    expect(all?.requests).toBe(4);
    expect(all?.edge).toEqual({ told: 3, hitRatio: 1 / 3, byteHitRatio: 0.1 });
    expect(all?.shield).toEqual({ told: 2, hitRatio: 0.5, byteHitRatio: 300 / 900 });
    expect(tierRatios([{ location: 0, bytes: 1 }], 1)[0]?.edge.hitRatio).toBeUndefined();
  });
});

describe('unique bytes asked', () => {
  it('counts each byte of each version once: ranges, whole objects, cuts; HEAD asks none', () => {
    const sizes = new Map([
      ['/v', 1000],
      ['/p', 10],
    ]);
    expect(
      uniqueRequestedBytes(
        [
          { method: 'GET', path: '/v', range: 'bytes=0-', versionAtSend: 0 },
          { method: 'GET', path: '/v', range: 'bytes=500-', versionAtSend: 0 },
          { method: 'HEAD', path: '/p', versionAtSend: 0 },
          { method: 'GET', path: '/p', versionAtSend: 0 },
          { method: 'GET', path: '/p', versionAtSend: 1 },
        ],
        sizes,
      ),
    ).toBe(1000 + 10 + 10);
  });
});

describe('the cold crowd', () => {
  const answer = (start: number, sentBytes: number) => ({ path: '/c', version: 0, status: 206, start, sentBytes });

  it('one answer per slice is once per slice; whole answers from six locations are six per slice', () => {
    const slice = 100;
    const sliced = [0, 100, 200, 300].map((start) => answer(start, 100));
    expect(crowdCost('/c', 400, sliced, slice).perSlice).toEqual([1, 1, 1, 1]);
    const whole = Array.from({ length: 6 }, () => answer(0, 400));
    expect(crowdCost('/c', 400, whole, slice)).toMatchObject({
      originRequests: 6,
      originBytes: 2400,
      perSlice: [6, 6, 6, 6],
    });
  });
});

describe('the access-log converter (combined format)', () => {
  const log = [
    '203.0.113.9 - - [10/Oct/2025:13:55:36 +0000] "GET /v/1.mp4 HTTP/1.1" 200 1000 "-" "curl/8"',
    '203.0.113.9 - - [10/Oct/2025:13:55:37 +0000] "GET /v/1.mp4 HTTP/1.1" 206 400 "-" "curl/8" "bytes=600-"',
    '198.51.100.2 - - [10/Oct/2025:14:55:38 +0100] "GET /v/1.mp4?x=1 HTTP/1.1" 200 300 "-" "Mozilla/5.0"',
    '198.51.100.2 - - [10/Oct/2025:13:55:39 +0000] "POST /api HTTP/1.1" 200 3 "-" "x"',
    '198.51.100.2 - - [10/Oct/2025:13:55:40 +0000] "GET /missing HTTP/1.1" 404 3 "-" "x"',
    'not a log line',
  ].join('\n');

  it('reads GET and HEAD answers into a trace: times from the first, ranges, sizes, cuts; the rest counted out', () => {
    const { trace, converted, skipped } = convertLog(log, 4);
    expect({ converted, skipped }).toEqual({ converted: 3, skipped: 3 });
    expect(trace.objects).toEqual([{ path: '/v/1.mp4', size: 1000 }]);
    expect(trace.requests.map((r) => [r.atMs, r.range, r.abortAfter])).toEqual([
      [0, undefined, undefined],
      [1000, 'bytes=600-', undefined],
      [2000, undefined, 300],
    ]);
    expect(trace.requests[0]?.location).toBe(trace.requests[1]?.location);
  });
});

describe('the summary line', () => {
  it('is the form a script reads, n/a for a system that did not run', () => {
    const system = (name: SystemSummary['name'], ratio: number, exact?: boolean) =>
      ({
        name,
        originPerUnique: ratio,
        ...(exact !== undefined && { ledger: { sent: 1, answered: 1, counted: 1, exact } }),
      }) as SystemSummary;
    const report = {
      locations: 6,
      requests: 2343,
      speed: 4,
      wallSeconds: 1,
      systems: [system('tiercache', 1.004, true), system('no-shield', 3.456), system('varnish', 1.5)],
    } satisfies SimReport;
    expect(summaryLine(report)).toBe(
      'sim: locations 6, requests 2343, origin/unique tiercache 1.00, no-shield 3.46, varnish 1.50, nginx-slice n/a; ledger exact yes',
    );
  });
});

describe('the targets tiercache is held to', () => {
  it('judges tiercache on each, and says n/a where it measured nothing', () => {
    const tiercache = {
      name: 'tiercache',
      wrongBytes: 0,
      originPerUnique: 1.01,
      crowd: { path: '/c', size: 16, originRequests: 2, originBytes: 16, slices: 2, perSlice: [1, 1] },
      firstBytes: [
        { location: 0, path: 'miss', count: 3, p50: 60, p95: 70, p99: 80, floorMs: 55 },
        { location: 1, path: 'miss', count: 3, p50: 300, p95: 310, p99: 320, floorMs: 195 },
      ],
      ledger: { sent: 5, answered: 5, counted: 5, exact: true },
    } as unknown as SystemSummary;
    const report: SimReport = { locations: 2, requests: 5, speed: 1, wallSeconds: 1, systems: [tiercache] };
    expect(simTargets(report).map((v) => [v.target.split(' ')[0], v.met])).toEqual([
      ['no', true],
      ['tiercache', true],
      ['cold', true],
      ['tiercache', false],
      ['a', undefined],
      ['the', true],
    ]);
    expect(simTargets(report)[3]?.measured).toBe('worst 1.54×');
  });
});

describe('segments and their prefetching (--hls)', () => {
  const MISS = 'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=uri-miss; stored';
  const SHIELD_HIT = 'tiercache-shield; hit, tiercache-edge; fwd=uri-miss; stored';
  const EDGE_HIT = 'tiercache-edge; hit';
  const segments = new Set(['/h/0/1.ts', '/h/0/2.ts', '/h/0/3.ts']);
  const sample = (index: number, path: string, ttfbMs: number, cacheStatus: string) => ({
    index,
    path,
    location: 0,
    bytes: 1,
    cacheStatus,
    ttfbMs,
  });
  const prefetches = {
    prefetched: 4,
    prefetchesUsed: 2,
    prefetchesWasted: 1,
    prefetchBytes: 4000,
    prefetchWastedBytes: 1000,
  };

  it("takes the segments' first bytes alone (all, past the edge, misses), the system's counts and the origin's waste", () => {
    const samples = [
      sample(0, '/h/0/1.ts', 100, MISS),
      sample(1, '/h/0/2.ts', 60, SHIELD_HIT),
      sample(2, '/h/0/3.ts', 10, EDGE_HIT),
      sample(3, '/p/0.html', 500, MISS),
      sample(4, '/h/0/2.ts', Number.NaN, MISS),
    ];
    const origin = { bytes: 20_000, unasked: { requests: 1, bytes: 1000 } };
    expect(segmentSummary(samples, segments, origin, prefetches)).toEqual({
      all: { count: 3, p50: 60, p90: 100, p99: 100 },
      atShield: { count: 2, p50: 60, p90: 100, p99: 100 },
      shieldHits: 1,
      misses: { count: 1, p50: 100, p90: 100, p99: 100 },
      prefetches,
      unaskedRequests: 1,
      unaskedBytes: 1000,
      unaskedShare: 0.05,
    });
    expect(segmentSummary(samples, new Set(), origin, undefined)).toBeUndefined();
  });

  it('pairs the segments of both runs: the misses at a cold shield without prefetching, and what became of them', () => {
    const off = [
      sample(0, '/h/0/1.ts', 200, MISS),
      sample(1, '/h/0/2.ts', 210, MISS),
      sample(2, '/h/0/3.ts', 220, MISS),
      sample(3, '/h/0/1.ts', 20, EDGE_HIT),
      sample(4, '/p/0.html', 300, MISS),
    ];
    const on = [
      sample(0, '/h/0/1.ts', 205, MISS),
      sample(1, '/h/0/2.ts', 150, SHIELD_HIT),
      sample(2, '/h/0/3.ts', 140, SHIELD_HIT),
      sample(3, '/h/0/1.ts', 21, EDGE_HIT),
      sample(4, '/p/0.html', 100, MISS),
    ];
    const pairs = prefetchPairs(off, on, segments);
    expect(pairs.coldMisses).toEqual({
      off: { count: 3, p50: 210, p90: 220, p99: 220 },
      on: { count: 3, p50: 150, p90: 205, p99: 205 },
      hits: 2,
      sooner: 2,
      later: 0,
    });
    expect(pairs.all.off.count).toBe(4);
    expect(pairs.all.on.p50).toBe(140);
  });

  it('prints its tables, and holds tiercache to wasting at most 5 % of the origin’s bytes', () => {
    const segmentsOf = (share: number) => ({
      all: spread([10, 20]),
      atShield: spread([20]),
      shieldHits: 1,
      misses: spread([]),
      prefetches,
      unaskedRequests: 1,
      unaskedBytes: 1000,
      unaskedShare: share,
    });
    const system = (name: SystemSummary['name'], share: number) =>
      ({
        name,
        wrongBytes: 0,
        originPerUnique: 1.04,
        originBytes: 26_000,
        uniqueBytes: 25_000,
        firstBytes: [],
        segments: segmentsOf(share),
      }) as unknown as SystemSummary;
    const report: SimReport = {
      locations: 1,
      requests: 2,
      speed: 4,
      wallSeconds: 1,
      systems: [system('tiercache-no-prefetch', 0), system('tiercache', 0.04)],
      prefetchPairs: prefetchPairs([], [], segments),
    };
    const sections = segmentSections(report).map(([title, table]) => [title, formatTable(table)]);
    expect(sections.map(([title]) => title)).toEqual([
      'Segments: first bytes (ms), every location',
      'Segment prefetching: what it fetched, and what no client asked for',
      'Prefetching off against on, request by request: the segments of both runs',
    ]);
    expect(sections[1]?.[1]).toContain('4 (2, 1, 1)');
    // 26,000 origin bytes, 1,000 of them for what no client asked: the 25,000 asked, each once.
    expect(sections[1]?.[1]).toMatch(/\| 1\.040 +\| 1\.000 +\|/);
    expect(sections[1]?.[1]).toContain('4.00 %');
    const verdict = (share: number) =>
      simTargets({ ...report, systems: [system('tiercache', share)] }).find((v) => v.target.startsWith('segment'));
    expect(verdict(0.04)).toMatchObject({ measured: '4.00 %', met: true });
    expect(verdict(0.06)?.met).toBe(false);
    // The origin/unique target judges the bytes clients asked for (25,000 of 25,000: 1.000), not prefetching's 1.040.
    const ratio = simTargets({ ...report, systems: [system('tiercache', 0.04)] })[1];
    expect(ratio).toMatchObject({ measured: '1.000', met: true });
    expect(ratio?.target).toContain('the paths clients asked for');
    expect(segmentSections({ ...report, systems: [] })).toEqual([]);
  });
});
