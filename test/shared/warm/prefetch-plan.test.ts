import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IDLE_SEGMENTS, prefetchPlan, segmentsAhead, stillWatched } from '../../../shared/warm/prefetch-plan.ts';

const SEGMENTS = Array.from({ length: 10 }, (_, n) => `s${n}`);

describe('segmentsAhead', () => {
  const read = (index: number, previousReadAt: number | undefined, now = 10_000) => ({
    index,
    previousReadAt,
    now,
    targetMs: 4000,
  });

  it('is the most for a player starting at the first segment, or asking within half a duration of the one before', () => {
    expect(segmentsAhead(3, read(0, undefined))).toBe(3);
    expect(segmentsAhead(3, read(5, 10_000 - 1999))).toBe(3);
  });

  it('is one for a player reading in real time, or one whose segment before was not read here (a seek)', () => {
    expect(segmentsAhead(3, read(5, 10_000 - 2000))).toBe(1);
    expect(segmentsAhead(3, read(5, 10_000 - 4000))).toBe(1);
    expect(segmentsAhead(3, read(5, undefined))).toBe(1);
  });

  it('is none when prefetching is off', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.option(fc.nat(20_000), { nil: undefined }), (index, previous) => {
        expect(segmentsAhead(0, read(index, previous))).toBe(0);
      }),
    );
  });

  it('is never more than the most, and at least one when on', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.nat(100),
        fc.option(fc.nat(20_000), { nil: undefined }),
        (max, index, previous) => {
          const ahead = segmentsAhead(max, read(index, previous));
          expect(ahead === 1 || ahead === max).toBe(true);
        },
      ),
    );
  });
});

describe('stillWatched', () => {
  it('holds while a segment of the rendition was read within IDLE_SEGMENTS durations', () => {
    expect(stillWatched(0, IDLE_SEGMENTS * 4000, 4000)).toBe(true);
    expect(stillWatched(0, IDLE_SEGMENTS * 4000 + 1, 4000)).toBe(false);
    expect(stillWatched(Number.NEGATIVE_INFINITY, 0, 4000)).toBe(false);
  });
});

describe('prefetchPlan', () => {
  const ask = (index: number, ahead: number, present: readonly string[] = [], room = 100) => ({
    segments: SEGMENTS,
    index,
    ahead,
    present: (key: string) => present.includes(key),
    room,
  });

  it('names the segments after the one read, nearest first', () => {
    expect(prefetchPlan(ask(0, 3))).toEqual(['s1', 's2', 's3']);
    expect(prefetchPlan(ask(4, 1))).toEqual(['s5']);
  });

  it('leaves out those present (stored, or under way) and stops at the rendition’s end', () => {
    expect(prefetchPlan(ask(0, 3, ['s2']))).toEqual(['s1', 's3']);
    expect(prefetchPlan(ask(8, 3))).toEqual(['s9']);
    expect(prefetchPlan(ask(9, 3))).toEqual([]);
  });

  it('starts no more than the budget’s room', () => {
    expect(prefetchPlan(ask(0, 3, [], 2))).toEqual(['s1', 's2']);
    expect(prefetchPlan(ask(0, 3, [], 0))).toEqual([]);
  });

  it('names only segments within `ahead` of the read, each once, none present, at most `room`, in order', () => {
    fc.assert(
      fc.property(fc.nat(12), fc.nat(5), fc.subarray(SEGMENTS), fc.nat(6), (index, ahead, present, room) => {
        const plan = prefetchPlan(ask(index, ahead, present, room));
        expect(plan.length).toBeLessThanOrEqual(Math.min(room, ahead));
        expect(new Set(plan).size).toBe(plan.length);
        const places = plan.map((key) => SEGMENTS.indexOf(key));
        for (const place of places) {
          expect(place).toBeGreaterThan(index);
          expect(place).toBeLessThanOrEqual(index + ahead);
        }
        expect([...places].sort((a, b) => a - b)).toEqual(places);
        for (const key of plan) expect(present).not.toContain(key);
      }),
    );
  });

  it('with a rendition repeating a key (a DASH template without $Number$), names it once', () => {
    expect(prefetchPlan({ segments: ['a', 'b', 'b', 'c'], index: 0, ahead: 3, present: () => false, room: 9 })).toEqual(
      ['b', 'c'],
    );
  });
});
