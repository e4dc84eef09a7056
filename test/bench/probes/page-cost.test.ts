import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describePageCost, pageCost, parseReporting } from '../../../bench/probes/page-cost.ts';

describe('parseReporting', () => {
  it('reads the block order as 4 KiB pages (order 9 is 2 MiB) and the wait in ms', () => {
    expect(parseReporting('9\n', '0\n')).toEqual({ blockMiB: 2, minFreeMs: 0 });
    expect(parseReporting('10', '2000')).toEqual({ blockMiB: 4, minFreeMs: 2000 });
  });

  it('knows of no reporting when the order is absent or garbled, whatever the wait says', () => {
    for (const order of [undefined, '', 'x', '-1', '9.5', '31']) expect(parseReporting(order, '0')).toBeUndefined();
  });

  it('never throws, and any block it answers is a whole number of pages', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.string(), { nil: undefined }),
        (order, wait) => {
          const reporting = parseReporting(order, wait);
          if (reporting !== undefined) {
            expect(Number.isInteger(reporting.blockMiB * 256)).toBe(true);
            expect(reporting.minFreeMs).toBeGreaterThanOrEqual(0);
          }
        },
      ),
    );
  });
});

describe('pageCost', () => {
  it('measures a write onto new pages and one over them, and leaves no file behind', () => {
    const cost = pageCost(4);
    expect(cost.mib).toBe(4);
    expect(Number.isFinite(cost.freshMsPerMiB) && cost.freshMsPerMiB >= 0).toBe(true);
    expect(Number.isFinite(cost.inPlaceMsPerMiB) && cost.inPlaceMsPerMiB >= 0).toBe(true);
    expect(describePageCost(cost)).toMatch(
      /^writing new pages costs \d+\.\d\d ms of CPU per MiB, over pages already held \d+\.\d\d \(4 MiB\)/,
    );
  });
});
