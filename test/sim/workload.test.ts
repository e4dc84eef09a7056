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
import { COMPUTED_CONTENT, contentBook } from '../../bench/sim/workload/object-content.ts';
import { seededRandom } from '../../bench/sim/workload/random.ts';
import { HLS_VIEWERS_MIX } from '../../bench/sim/workload/sessions.ts';
import { formatTrace, parseTrace, type Trace, type TraceRequest } from '../../bench/sim/workload/trace.ts';
import { zipfSampler } from '../../bench/sim/workload/zipf.ts';
import { renditionOrders } from '../../shared/warm/rendition-order.ts';

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

describe("a trace's playlists (object-content.ts)", () => {
  const objects = [
    { path: '/h/0/800/index.m3u8', size: 1500 },
    { path: '/h/0/800/0.ts', size: 5000 },
    { path: '/h/0/800/1.ts', size: 5000 },
    { path: '/h/0/800/2.ts', size: 5000 },
    { path: '/h/1/800/index.m3u8', size: 100 },
    { path: '/h/1/800/0.ts', size: 5000 },
    { path: '/p/0.html', size: 3000 },
  ];
  const book = contentBook(objects, 1);
  const text = (id: { path: string; version: number }, size: number): string =>
    new TextDecoder().decode(book.of(id, size).bytes(0, size));

  it('are media playlists naming their folder’s segments in order, at the replay’s pace, exactly their size', () => {
    const playlist = text({ path: '/h/0/800/index.m3u8', version: 0 }, 1500);
    expect(playlist).toHaveLength(1500);
    const order = renditionOrders(playlist, 'hls', new URL('http://cdn.example/h/0/800/index.m3u8'), 100);
    expect(order).toEqual([{ segments: [0, 1, 2].map((n) => `http://cdn.example/h/0/800/${n}.ts`), targetMs: 1000 }]);
    // The second playlist cannot hold its text in 100 bytes: its segment is named by none.
    expect(book.segments).toEqual(new Set(['/h/0/800/0.ts', '/h/0/800/1.ts', '/h/0/800/2.ts', '/h/1/800/0.ts']));
  });

  it('differ between versions, and keep computed bytes where the text cannot fit or the object is no playlist', () => {
    expect(text({ path: '/h/0/800/index.m3u8', version: 1 }, 1500)).not.toBe(
      text({ path: '/h/0/800/index.m3u8', version: 0 }, 1500),
    );
    const small = { path: '/h/1/800/index.m3u8', version: 0 };
    expect(book.of(small, 100).bytes(0, 100)).toEqual(contentBytes(contentSeed(small), 0, 100));
    const page = { path: '/p/0.html', version: 0 };
    expect(book.of(page, 3000).bytes(10, 50)).toEqual(contentBytes(contentSeed(page), 10, 50));
    expect(COMPUTED_CONTENT.of(page, 3000).matches(10, contentBytes(contentSeed(page), 10, 50))).toBe(true);
  });

  it('check any chunk read at its offset, and nothing else', () => {
    const id = { path: '/h/0/800/index.m3u8', version: 0 };
    const content = book.of(id, 1500);
    fc.assert(
      fc.property(fc.nat(1499), fc.nat(200), (start, length) => {
        const chunk = content.bytes(start, Math.min(length, 1500 - start));
        expect(content.matches(start, chunk)).toBe(true);
        if (chunk.length > 0)
          expect(
            content.matches(
              start,
              chunk.map((byte) => byte ^ 1),
            ),
          ).toBe(false);
      }),
    );
  });

  it('are the generated catalogue’s, every one of them a playlist', () => {
    const trace = generateTrace({ ...DEFAULT_WORKLOAD, minutes: 1, mix: HLS_VIEWERS_MIX });
    const generated = contentBook(trace.objects, 1);
    const playlists = trace.objects.filter((object) => object.path.endsWith('.m3u8'));
    for (const { path, size } of playlists)
      expect(new TextDecoder().decode(generated.of({ path, version: 0 }, size).bytes(0, 7))).toBe('#EXTM3U');
    expect(generated.segments.size).toBe(playlists.length * 30);
    // Mostly HLS viewers: a session starts with its playlist or its page, four in five with a playlist.
    const starts = (suffix: string) => trace.requests.filter((request) => request.path.endsWith(suffix)).length;
    expect(starts('.m3u8') / (starts('.m3u8') + starts('.html'))).toBeGreaterThan(0.7);
  });
});
