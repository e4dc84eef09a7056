// bench:cold-download --topology's pure parts (bench/sim/cold-links.ts): the map it plays on, the origin link's two
// shapes, and the sampled check of a download's chunks.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coldTopology, originShapes, SAMPLE_BYTES, sampledMatches } from '../../../bench/sim/cold-links.ts';
import { originLink } from '../../../bench/sim/links.ts';
import { defaultTopology } from '../../../bench/sim/topology.ts';
import { contentBytes, contentSeed } from '../../../bench/sim/workload/content.ts';

const SEED = contentSeed({ path: '/cold-1024m.bin', version: 0 });

describe('the cold download topology', () => {
  it('keeps the map for `map` and opens only the client and shield links for `open`', () => {
    expect(coldTopology('map')).toEqual(defaultTopology({ locations: 2 }));
    const open = coldTopology('open');
    const map = coldTopology('map');
    expect(open.locations.map((spec) => spec.name)).toEqual(['ams', 'iad']);
    for (const spec of open.locations) {
      expect(spec.client).toEqual({ latencyMs: 0, bytesPerSec: 1e12 });
      expect(spec.shield).toEqual({ latencyMs: 0, bytesPerSec: 1e12 });
    }
    expect(open.origin).toEqual(map.origin);
    expect(open.originFirstByteMs).toBe(map.originFirstByteMs);
  });

  it("shapes the origin link as the map's and unshapes it with no latency, both timed from the response", () => {
    const topology = coldTopology('map');
    const { shaped, unshaped } = originShapes(topology);
    const link = originLink(topology);
    expect(shaped).toEqual({
      firstByteLatencyMs: link.latencyMs,
      bandwidthBytesPerSec: link.bytesPerSec,
      latencyFrom: 'response',
    });
    expect(shaped.bandwidthBytesPerSec).toBe(25e6);
    expect(unshaped.firstByteLatencyMs).toBe(0);
    expect(unshaped.latencyFrom).toBe('response');
    expect(unshaped.bandwidthBytesPerSec).toBeGreaterThan(1e10);
  });
});

describe('the sampled check of a chunk', () => {
  it("passes every chunk of the object's own bytes at its offset", () => {
    fc.assert(
      fc.property(fc.nat(2 ** 30), fc.integer({ min: 1, max: 70_000 }), (offset, length) => {
        expect(sampledMatches(SEED, offset, contentBytes(SEED, offset, length))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('fails a chunk read at another offset, of another object, or changed at either end', () => {
    fc.assert(
      fc.property(
        fc.nat(2 ** 30),
        fc.integer({ min: 1, max: 70_000 }),
        fc.integer({ min: 1, max: 2 ** 20 }),
        (offset, length, shift) => {
          const chunk = contentBytes(SEED, offset + shift, length);
          expect(sampledMatches(SEED, offset, chunk)).toBe(false);
          const other = contentBytes(contentSeed({ path: '/cold-100m.bin', version: 0 }), offset, length);
          expect(sampledMatches(SEED, offset, other)).toBe(false);
          for (const at of [0, length - 1, Math.min(SAMPLE_BYTES, length) - 1]) {
            const changed = contentBytes(SEED, offset, length).slice();
            changed[at] = ((changed[at] ?? 0) + 1) & 0xff;
            expect(sampledMatches(SEED, offset, changed)).toBe(false);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
