import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit, OTHER, topNames, weightsBy } from '../../../shared/stats/fold-other.ts';
import { compareNames, rankBy } from '../../../shared/stats/ranking.ts';

describe('admit', () => {
  it('holds names first come first kept, up to its bound; later ones are OTHER', () => {
    const held = new Set<string>();
    expect(['a', 'b', 'a', 'c', 'b'].map((name) => admit(held, name, 2))).toEqual(['a', 'b', 'a', OTHER, 'b']);
    expect([...held]).toEqual(['a', 'b']);
  });

  it('never spends a place on OTHER itself', () => {
    const held = new Set<string>();
    expect(admit(held, OTHER, 1)).toBe(OTHER);
    expect(admit(held, 'a', 1)).toBe('a');
  });

  it('never holds more than its bound, whatever arrives', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3 })), fc.nat(10), (names, max) => {
        const held = new Set<string>();
        const admitted = names.map((name) => admit(held, name, max));
        expect(held.size).toBeLessThanOrEqual(max);
        admitted.forEach((name, i) => {
          expect(name === names[i] || name === OTHER).toBe(true);
        });
      }),
    );
  });
});

describe('topNames and weightsBy', () => {
  it('sums weights by name', () => {
    expect(
      weightsBy(
        [
          { n: 'a', w: 1 },
          { n: 'b', w: 2 },
          { n: 'a', w: 3 },
        ],
        (item) => item.n,
        (item) => item.w,
      ),
    ).toEqual(
      new Map([
        ['a', 4],
        ['b', 2],
      ]),
    );
  });

  it('keeps the heaviest names, ties by name, never OTHER', () => {
    const weights = new Map([
      ['b', 5],
      ['a', 5],
      ['c', 9],
      [OTHER, 100],
      ['d', 1],
    ]);
    expect([...topNames(weights, 3)]).toEqual(['c', 'a', 'b']);
    expect(topNames(weights, 0).size).toBe(0);
  });

  it('keeps names no lighter than any it leaves out', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4 }), fc.nat(20)), fc.nat(8), (record, max) => {
        const weights = new Map(Object.entries(record));
        const kept = topNames(weights, max);
        expect(kept.size).toBe(Math.min(max, [...weights.keys()].filter((name) => name !== OTHER).length));
        const lightestKept = Math.min(...[...kept].map((name) => weights.get(name) ?? 0));
        for (const [name, weight] of weights)
          if (!kept.has(name) && name !== OTHER) expect(weight).toBeLessThanOrEqual(lightestKept);
      }),
    );
  });
});

describe('rankBy and compareNames', () => {
  it('ranks most first, ties by name in code-unit order (the same on every runtime)', () => {
    expect(
      rankBy(
        [
          ['b', 1],
          ['a', 1],
          ['Z', 1],
          ['c', 2],
        ] as const,
        ([, count]) => count,
        ([name]) => name,
      ).map(([name]) => name),
    ).toEqual(['c', 'Z', 'a', 'b']);
    expect(compareNames('a', 'a')).toBe(0);
  });

  it('gives one order whatever order the items come in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ maxLength: 3 }), fc.nat(5)), { selector: ([name]) => name }),
        (items) => {
          const ranked = rankBy(
            items,
            ([, count]) => count,
            ([name]) => name,
          );
          expect(
            rankBy(
              [...items].reverse(),
              ([, count]) => count,
              ([name]) => name,
            ),
          ).toEqual(ranked);
        },
      ),
    );
  });
});
