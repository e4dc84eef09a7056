import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RENDITION_LIMITS, RenditionMemo } from '../../../shared/warm/rendition-memo.ts';

const keys = (rendition: string, count: number): string[] =>
  Array.from({ length: count }, (_, n) => `//cdn.example/${rendition}/seg${n}.ts`);

describe('RenditionMemo', () => {
  it('finds a segment’s rendition and place from the playlist it learned, and nothing of one it did not', () => {
    const memo = new RenditionMemo(RENDITION_LIMITS);
    memo.learn('//cdn.example/a/index.m3u8', '"v1"', [{ segments: keys('a', 5), targetMs: 4000 }]);
    const place = memo.locate('//cdn.example/a/seg3.ts');
    expect(place?.index).toBe(3);
    expect(place?.rendition.segments).toEqual(keys('a', 5));
    expect(place?.rendition.targetMs).toBe(4000);
    expect(memo.locate('//cdn.example/b/seg3.ts')).toBeUndefined();
    expect(memo.version('//cdn.example/a/index.m3u8')).toBe('"v1"');
    expect(memo.version('//cdn.example/b/index.m3u8')).toBeUndefined();
  });

  it('keeps a DASH manifest’s renditions apart, each its own order', () => {
    const memo = new RenditionMemo(RENDITION_LIMITS);
    memo.learn('//cdn.example/d.mpd', '', [
      { segments: keys('low', 3), targetMs: 2000 },
      { segments: keys('high', 3), targetMs: 2000 },
    ]);
    expect(memo.locate('//cdn.example/high/seg1.ts')?.rendition.segments).toEqual(keys('high', 3));
    expect(memo.size).toMatchObject({ renditions: 2, segments: 6 });
  });

  it('replaces a playlist learned again at another version (a live playlist), keeping its reads and what is stored', () => {
    const memo = new RenditionMemo(RENDITION_LIMITS);
    memo.learn('//cdn.example/live.m3u8', '"1"', [{ segments: keys('l', 4), targetMs: 2000 }]);
    const first = memo.locate('//cdn.example/l/seg2.ts');
    if (first === undefined) throw new Error('not learned');
    memo.read(first.rendition, '//cdn.example/l/seg2.ts', 1000);
    memo.learn('//cdn.example/live.m3u8', '"2"', [{ segments: keys('l', 6).slice(2), targetMs: 2000 }]);
    const again = memo.locate('//cdn.example/l/seg2.ts');
    expect(again?.index).toBe(0);
    expect(again?.rendition.lastReadAt).toBe(1000);
    expect(again?.rendition.reads.get('//cdn.example/l/seg2.ts')).toBe(1000);
    expect(memo.isStored('//cdn.example/l/seg2.ts')).toBe(true);
    expect(memo.locate('//cdn.example/l/seg0.ts')).toBeUndefined();
    expect(memo.version('//cdn.example/live.m3u8')).toBe('"2"');
  });

  it('remembers a segment as stored only while its rendition is remembered', () => {
    const memo = new RenditionMemo({ renditions: 1, bytes: 1 << 20 });
    memo.stored('//cdn.example/x/seg0.ts');
    expect(memo.isStored('//cdn.example/x/seg0.ts')).toBe(false);
    memo.learn('//cdn.example/x/index.m3u8', '', [{ segments: keys('x', 2), targetMs: 4000 }]);
    memo.stored('//cdn.example/x/seg0.ts');
    expect(memo.isStored('//cdn.example/x/seg0.ts')).toBe(true);
    memo.learn('//cdn.example/y/index.m3u8', '', [{ segments: keys('y', 2), targetMs: 4000 }]);
    expect(memo.isStored('//cdn.example/x/seg0.ts')).toBe(false);
    expect(memo.locate('//cdn.example/x/seg0.ts')).toBeUndefined();
  });

  it('forgets the least recently used playlist first: a located one is used', () => {
    const memo = new RenditionMemo({ renditions: 2, bytes: 1 << 20 });
    memo.learn('//h/a.m3u8', '', [{ segments: keys('a', 2), targetMs: 4000 }]);
    memo.learn('//h/b.m3u8', '', [{ segments: keys('b', 2), targetMs: 4000 }]);
    memo.locate('//cdn.example/a/seg0.ts');
    memo.learn('//h/c.m3u8', '', [{ segments: keys('c', 2), targetMs: 4000 }]);
    expect(memo.version('//h/a.m3u8')).toBe('');
    expect(memo.version('//h/b.m3u8')).toBeUndefined();
    expect(memo.version('//h/c.m3u8')).toBe('');
  });

  it('never learns a playlist larger than its bytes, nor more renditions than it holds', () => {
    const memo = new RenditionMemo({ renditions: 2, bytes: 2000 });
    memo.learn('//h/big.m3u8', '', [{ segments: keys('big', 50), targetMs: 4000 }]);
    expect(memo.version('//h/big.m3u8')).toBeUndefined();
    memo.learn(
      '//h/three.mpd',
      '',
      [1, 2, 3].map((n) => ({ segments: keys(`r${n}`, 1), targetMs: 4000 })),
    );
    expect(memo.version('//h/three.mpd')).toBeUndefined();
    expect(memo.size).toEqual({ renditions: 0, segments: 0, bytes: 0 });
  });

  it('stays within its renditions and bytes whatever it is taught, and forgets nothing it was not made to', () => {
    const limits = { renditions: 5, bytes: 6000 };
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            playlist: fc.integer({ min: 0, max: 8 }),
            renditions: fc.integer({ min: 0, max: 3 }),
            segments: fc.integer({ min: 1, max: 20 }),
          }),
          { maxLength: 40 },
        ),
        (steps) => {
          const memo = new RenditionMemo(limits);
          for (const step of steps) {
            const orders = Array.from({ length: step.renditions }, (_, r) => ({
              segments: keys(`p${step.playlist}r${r}`, step.segments),
              targetMs: 4000,
            }));
            memo.learn(`//h/p${step.playlist}.m3u8`, '', orders);
            const { renditions, bytes, segments } = memo.size;
            expect(renditions).toBeLessThanOrEqual(limits.renditions);
            expect(bytes).toBeLessThanOrEqual(limits.bytes);
            expect(bytes).toBeGreaterThanOrEqual(0);
            if (memo.version(`//h/p${step.playlist}.m3u8`) !== undefined)
              expect(memo.locate(`//cdn.example/p${step.playlist}r0/seg0.ts`)?.index).toBe(0);
            expect(segments).toBeLessThanOrEqual(renditions * 20);
          }
        },
      ),
    );
  });
});

describe('RenditionMemo reads', () => {
  it('remembers the latest read of each of its recent segments, and when any was read last', () => {
    const memo = new RenditionMemo(RENDITION_LIMITS);
    memo.learn('//h/a.m3u8', '', [{ segments: keys('a', 40), targetMs: 4000 }]);
    const { rendition } = memo.locate('//cdn.example/a/seg0.ts') ?? { rendition: undefined };
    if (rendition === undefined) throw new Error('not learned');
    expect(rendition.lastReadAt).toBe(Number.NEGATIVE_INFINITY);
    for (let n = 0; n < 30; n++) memo.read(rendition, `//cdn.example/a/seg${n}.ts`, 100 + n);
    memo.read(rendition, '//cdn.example/a/seg5.ts', 90);
    expect(rendition.reads.size).toBe(16);
    expect(rendition.reads.get('//cdn.example/a/seg29.ts')).toBe(129);
    expect(rendition.reads.get('//cdn.example/a/seg5.ts')).toBe(90);
    expect(rendition.reads.has('//cdn.example/a/seg0.ts')).toBe(false);
    expect(rendition.lastReadAt).toBe(129);
    expect(memo.isStored('//cdn.example/a/seg0.ts')).toBe(true);
  });
});
