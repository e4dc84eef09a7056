// The sim's workload, pure: the trace's text format (parse ∘ format is the identity, every bad line named), the
// generator (one seed one trace; every path in the catalogue; the cold crowd at every location within 100 ms), Zipf
// popularity and the objects' computed bytes (any range of an object is the same bytes as the whole has there).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentBytes, contentEtag, contentSeed, etagVersion } from '../../bench/sim/workload/content.ts';
import {
  CROWD_TAG,
  CROWD_WINDOW_MS,
  DEFAULT_WORKLOAD,
  generateTrace,
  PURGE_TAG,
} from '../../bench/sim/workload/generate.ts';
import { seededRandom } from '../../bench/sim/workload/random.ts';
import { formatTrace, parseTrace, type Trace, type TraceRequest } from '../../bench/sim/workload/trace.ts';
import { zipfSampler } from '../../bench/sim/workload/zipf.ts';

const path = fc.stringMatching(/^\/[a-z0-9._/-]{0,20}$/);
/** Optional fields absent, not undefined: what parseTrace makes. */
const request: fc.Arbitrary<TraceRequest> = fc.record(
  {
    atMs: fc.nat(10_000_000),
    location: fc.nat(63),
    method: fc.constantFrom('GET', 'HEAD', 'PURGE'),
    path,
    range: fc.constantFrom('bytes=0-', 'bytes=5-99', 'bytes=-10'),
    abortAfter: fc.nat(),
    tag: fc.stringMatching(/^[a-z0-9._-]{1,8}$/),
  },
  { requiredKeys: ['atMs', 'location', 'method', 'path'] },
);

describe('the trace format', () => {
  it('reads back every trace it writes (parse ∘ format is the identity on sorted traces)', () => {
    fc.assert(
      fc.property(fc.array(request, { maxLength: 30 }), (requests) => {
        const sorted = [...requests].sort((a, b) => a.atMs - b.atMs);
        const objects = [...new Set(sorted.map((r) => r.path))].map((p, i) => ({ path: p, size: i * 1000 }));
        const trace: Trace = { objects, requests: sorted };
        expect(parseTrace(formatTrace(trace))).toEqual(trace);
      }),
    );
  });

  it('takes comments, blank lines and requests out of time order, sorting them', () => {
    const trace = parseTrace('# mine\n#object /a 10\n\n20 1 GET /a bytes=0- abort=5\n10 0 HEAD /a -\n');
    expect(trace.requests.map((r) => r.atMs)).toEqual([10, 20]);
    expect(trace.requests[1]).toEqual({
      atMs: 20,
      location: 1,
      method: 'GET',
      path: '/a',
      range: 'bytes=0-',
      abortAfter: 5,
    });
  });

  it('names the line it cannot read and what it expected', () => {
    expect(() => parseTrace('#object /a 10\n0 0 POST /a -')).toThrow(/line 2: expected GET, HEAD or PURGE/);
    expect(() => parseTrace('#object /a 10\n0 x GET /a -')).toThrow(/line 2: expected a location index/);
    expect(() => parseTrace('#object /a 10\n0 0 GET /a items=1')).toThrow(/line 2: expected a Range value/);
    expect(() => parseTrace('#object /a 10\n0 0 GET /a - speed=2')).toThrow(/line 2: expected abort=N or tag=T/);
    expect(() => parseTrace('0 0 GET /b -')).toThrow(/line 1: no '#object \/b <size>' line/);
  });
});

describe('the generator', () => {
  const options = { ...DEFAULT_WORKLOAD, locations: 3, minutes: 1, crowdBytes: 4 * 2 ** 20 };

  it('makes the same trace from the same seed, and another from another', () => {
    expect(generateTrace(options)).toEqual(generateTrace(options));
    expect(generateTrace({ ...options, seed: 38 }).requests).not.toEqual(generateTrace(options).requests);
  });

  it('asks only for objects of its catalogue, in time order, within the trace, at its locations', () => {
    const trace = generateTrace(options);
    const paths = new Set(trace.objects.map((o) => o.path));
    expect(trace.requests.length).toBeGreaterThan(100);
    for (const [i, r] of trace.requests.entries()) {
      expect(paths.has(r.path)).toBe(true);
      expect(r.atMs).toBeGreaterThanOrEqual(trace.requests[i - 1]?.atMs ?? 0);
      expect(r.atMs).toBeLessThan(60_000);
      expect(r.location).toBeLessThan(3);
    }
  });

  it('brings the cold crowd from every location within 100 ms, and one purge', () => {
    const trace = generateTrace(options);
    const crowd = trace.requests.filter((r) => r.tag === CROWD_TAG);
    expect(crowd.map((r) => r.location).sort()).toEqual([0, 1, 2]);
    const times = crowd.map((r) => r.atMs);
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(CROWD_WINDOW_MS);
    expect(trace.objects.find((o) => o.path === crowd[0]?.path)?.size).toBe(4 * 2 ** 20);
    expect(trace.requests.filter((r) => r.method === 'PURGE' && r.tag === PURGE_TAG)).toHaveLength(1);
  });

  it('leaves the cold crowd out at a size of 0, and every other request as it was', () => {
    const without = generateTrace({ ...options, crowdBytes: 0 });
    expect(without.requests.some((r) => r.tag === CROWD_TAG)).toBe(false);
    expect(without.objects.some((o) => o.path.startsWith('/crowd/'))).toBe(false);
    expect(without.requests).toEqual(generateTrace(options).requests.filter((r) => r.tag !== CROWD_TAG));
  });

  it('has players that open bytes=0- and cut, and downloaders that reconnect for the rest', () => {
    const trace = generateTrace(options);
    const video = trace.requests.filter((r) => r.path.startsWith('/v/'));
    expect(video.some((r) => r.range === 'bytes=0-' && r.abortAfter !== undefined)).toBe(true);
    expect(video.some((r) => r.range === undefined && r.abortAfter !== undefined)).toBe(true);
    expect(video.some((r) => r.range !== undefined && r.range !== 'bytes=0-' && r.abortAfter === undefined)).toBe(true);
  });
});

describe('Zipf popularity', () => {
  it('asks rank 1 about 2^α times as often as rank 2', () => {
    const draw = zipfSampler(100, 1);
    const random = seededRandom(1);
    const counts = new Array<number>(100).fill(0);
    for (let i = 0; i < 50_000; i++) {
      const rank = draw(random);
      counts[rank] = (counts[rank] ?? 0) + 1;
    }
    const ratio = (counts[0] ?? 0) / (counts[1] ?? 1);
    expect(ratio).toBeGreaterThan(1.7);
    expect(ratio).toBeLessThan(2.3);
  });
});

describe("an object's computed bytes", () => {
  it('are the same bytes at an offset whether asked from there or from the start', () => {
    fc.assert(
      fc.property(fc.nat(5000), fc.nat(3000), fc.nat(100), (start, length, version) => {
        const seed = contentSeed({ path: '/x', version });
        expect(contentBytes(seed, start, length)).toEqual(contentBytes(seed, 0, start + length).subarray(start));
      }),
    );
  });

  it('differ between versions, and the ETag names the version', () => {
    const one = contentSeed({ path: '/x', version: 0 });
    const two = contentSeed({ path: '/x', version: 1 });
    expect(contentBytes(one, 0, 64)).not.toEqual(contentBytes(two, 0, 64));
    expect(etagVersion(contentEtag({ path: '/x', version: 7 }, 10))).toBe(7);
    expect(etagVersion('"abc"')).toBeUndefined();
  });
});
