// bench:egress's scripted clients (bench/workloads/egress-scenarios.ts): every read asks for bytes the object has,
// the player seeks into the last slice, the burst stays in one slice. No processes.
import { describe, expect, it } from 'vitest';
import { lastSliceStart, SCENARIOS } from '../../../bench/workloads/egress-scenarios.ts';

const MIB = 2 ** 20;
const SLICE = 8 * MIB;
const SIZES = [24 * MIB, 15_000_000, 9_005_671];

const scenario = (name: string) => {
  const found = SCENARIOS.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
};

describe('SCENARIOS', () => {
  it('ask only for bytes within the object, each range as its Range field says', () => {
    for (const size of SIZES) {
      for (const { steps } of SCENARIOS) {
        for (const read of steps(size, SLICE).flat()) {
          expect(read.expect.start).toBeGreaterThanOrEqual(0);
          expect(read.expect.end).toBeLessThan(size);
          expect(read.expect.start).toBeLessThanOrEqual(read.expect.end);
          const range = /^bytes=(\d*)-(\d*)$/.exec(read.range ?? '');
          if (range?.[1] !== undefined && range[1] !== '') expect(Number(range[1])).toBe(read.expect.start);
          if (range?.[2] !== undefined && range[2] !== '' && range[1] !== '')
            expect(Number(range[2])).toBe(read.expect.end);
        }
      }
    }
  });

  it('the player cuts at 1 MiB, seeks into the last slice, then plays from 1 MiB to the end', () => {
    const [first, seek, play] = scenario('player')
      .steps(24 * MIB, SLICE)
      .map((step) => step[0]);
    expect(first).toMatchObject({ range: 'bytes=0-', cutAfter: MIB });
    expect(seek?.expect.start).toBeGreaterThanOrEqual(lastSliceStart(24 * MIB, SLICE));
    expect(seek?.cutAfter).toBe(256 * 1024);
    expect(play).toMatchObject({ range: `bytes=${MIB}-`, expect: { start: MIB, end: 24 * MIB - 1 } });
    expect(play?.cutAfter).toBeUndefined();
  });

  it('the burst is eight reads at once within one slice', () => {
    for (const size of SIZES) {
      const steps = scenario('burst').steps(size, SLICE);
      expect(steps).toHaveLength(1);
      const reads = steps[0] ?? [];
      expect(reads).toHaveLength(8);
      const slices = new Set(
        reads.flatMap((r) => [Math.floor(r.expect.start / SLICE), Math.floor(r.expect.end / SLICE)]),
      );
      expect(slices.size).toBe(1);
    }
  });

  it('the downloader cuts three times, then reads the whole', () => {
    const steps = scenario('reconnecting downloader').steps(24 * MIB, SLICE);
    expect(steps.map((s) => s[0]?.cutAfter)).toEqual([MIB, 3 * MIB, 5 * MIB, undefined]);
    expect(steps[3]?.[0]?.range).toBeUndefined();
  });
});

describe('lastSliceStart', () => {
  it('is the start of the slice holding the last byte', () => {
    expect(lastSliceStart(24 * MIB, SLICE)).toBe(16 * MIB);
    expect(lastSliceStart(24 * MIB + 1, SLICE)).toBe(24 * MIB);
    expect(lastSliceStart(15_000_000, SLICE)).toBe(SLICE);
    expect(lastSliceStart(100, SLICE)).toBe(0);
  });
});
