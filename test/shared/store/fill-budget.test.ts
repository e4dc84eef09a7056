// What a fill may still pull once nobody waits for it, and the bounds of a body without a length
// (shared/store/fill-budget.ts): decisions on plain numbers.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moveDeadlineMs } from '../../../shared/slices/move-deadline.ts';
import {
  abandonVerdict,
  type FillLimits,
  isolateAdmits,
  pastAllowance,
  pastUnknownLengthMax,
} from '../../../shared/store/fill-budget.ts';

const MiB = 1024 * 1024;
const limits: FillLimits = {
  abandonedFillMax: 8 * MiB,
  abandonedIsolateMax: 32 * MiB,
  unknownLengthMax: 512 * MiB,
  unknownLengthMs: 120_000,
  idleMs: 10_000,
};

describe('abandonVerdict: a fill whose clients all left', () => {
  it('stops when more is left than ABANDONED_FILL_MAX, saying how much and naming the setting', () => {
    const verdict = abandonVerdict(MiB, 256 * MiB, limits);
    expect(verdict).toEqual({
      go: false,
      why: `nobody waits for this fill any more, and ${255 * MiB} bytes of it are left: more than the ${8 * MiB} one may pull for nobody (ABANDONED_FILL_MAX)`,
    });
  });

  it('finishes what is left when it is within ABANDONED_FILL_MAX (a range that ended near the end), exactly that much', () => {
    expect(abandonVerdict(248 * MiB, 256 * MiB, limits)).toEqual({
      go: true,
      allowance: 8 * MiB,
      deadlineMs: moveDeadlineMs(8 * MiB, limits.idleMs),
    });
    expect(abandonVerdict(100, 300, limits)).toMatchObject({ go: true, allowance: 200 });
    expect(abandonVerdict(300, 300, limits)).toMatchObject({ go: true, allowance: 0 });
  });

  it('stops a body without a length: how much of it is left is not known (an endless one never ends)', () => {
    expect(abandonVerdict(40 * MiB, undefined, limits)).toMatchObject({ go: false });
    expect(abandonVerdict(0, undefined, limits)).toMatchObject({ go: false });
  });

  it('stops every fill with something left when ABANDONED_FILL_MAX is 0', () => {
    const none = { ...limits, abandonedFillMax: 0 };
    expect(abandonVerdict(10, 11, none).go).toBe(false);
    expect(abandonVerdict(11, 11, none)).toMatchObject({ go: true, allowance: 0 });
  });

  it('for any fill, goes on exactly when what is left is within the bound, never allowed more than the bound, nor past its end', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 32 }),
        fc.nat({ max: 2 ** 32 }),
        fc.nat({ max: 2 ** 30 }),
        (delivered, extra, bound) => {
          const length = delivered + extra;
          const verdict = abandonVerdict(delivered, length, { ...limits, abandonedFillMax: bound });
          expect(verdict.go).toBe(extra <= bound);
          if (verdict.go) {
            expect(verdict.allowance).toBe(extra);
            expect(verdict.allowance).toBeLessThanOrEqual(bound);
            expect(verdict.deadlineMs).toBe(moveDeadlineMs(extra, limits.idleMs));
          }
        },
      ),
    );
  });
});

describe('pastAllowance', () => {
  it('holds once a fill pulled more since it was abandoned than its allowance', () => {
    expect(pastAllowance(8 * MiB, 8 * MiB)).toBe(false);
    expect(pastAllowance(8 * MiB + 1, 8 * MiB)).toBe(true);
    expect(pastAllowance(1, 0)).toBe(true);
  });
});

describe("isolateAdmits: the isolate's budget of bytes pulled for nobody", () => {
  it('admits an allowance that fits beside what abandoned fills hold, and none past it', () => {
    expect(isolateAdmits({ limit: 32 * MiB, inUse: 24 * MiB }, 8 * MiB)).toBe(true);
    expect(isolateAdmits({ limit: 32 * MiB, inUse: 24 * MiB + 1 }, 8 * MiB)).toBe(false);
    expect(isolateAdmits({ limit: 0, inUse: 0 }, 0)).toBe(true);
    expect(isolateAdmits({ limit: 0, inUse: 0 }, 1)).toBe(false);
  });
});

describe('pastUnknownLengthMax: a body without a length', () => {
  it('is past the longest a tier takes one byte beyond UNKNOWN_LENGTH_MAX', () => {
    expect(pastUnknownLengthMax(512 * MiB, limits)).toBe(false);
    expect(pastUnknownLengthMax(512 * MiB + 1, limits)).toBe(true);
  });
});
