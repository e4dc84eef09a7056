import { describe, expect, it } from 'vitest';
import type { ObjectWarmed } from '../../../shared/hop/warm-protocol.ts';
import { MAX_PROBLEMS, WarmTally } from '../../../shared/warm/warm-report.ts';

const warmed = (outcome: ObjectWarmed['outcome'], bytes = 0, originBytes = 0): ObjectWarmed => ({
  outcome,
  status: outcome === 'failed' ? 503 : 200,
  bytes,
  originBytes,
  ...(outcome === 'failed' || outcome === 'skipped' ? { reason: `it ${outcome}` } : {}),
});

const CALL = { tier: 'shield' as const, total: 10, from: 0, next: null, playlists: 0, subrequests: 4 };

describe('WarmTally', () => {
  it("counts each tier's outcomes and bytes, and each target once", () => {
    const tally = new WarmTally();
    tally.warmed('/a', 'shield', warmed('warmed', 100, 100));
    tally.warmed('/b', 'shield', warmed('cached'));
    tally.warmed('/c', 'shield', warmed('failed'));
    tally.warmed('/d', 'shield', warmed('skipped'));
    tally.skip('https://ads.example/x', 'another host');
    expect(tally.report(CALL)).toEqual({
      ...CALL,
      done: 5,
      skipped: 2,
      shield: { warmed: 1, cached: 1, failed: 1, bytes: 100, originBytes: 100 },
      problems: [
        { url: '/c', tier: 'shield', status: 503, reason: 'it failed' },
        { url: '/d', reason: 'it skipped' },
        { url: 'https://ads.example/x', reason: 'another host' },
      ],
    });
  });

  it('counts a target warmed at both tiers once, when its edge part is done', () => {
    const tally = new WarmTally();
    tally.warmed('/a', 'shield', warmed('warmed', 10, 10), false);
    expect(tally.report({ ...CALL, tier: 'both' }).done).toBe(0);
    tally.warmed('/a', 'edge', warmed('warmed', 10));
    const report = tally.report({ ...CALL, tier: 'both' });
    expect(report.done).toBe(1);
    expect(report.edge).toEqual({ warmed: 1, cached: 0, failed: 0, bytes: 10, originBytes: 0 });
  });

  it('lists at most MAX_PROBLEMS problems, counting them all', () => {
    const tally = new WarmTally();
    for (let i = 0; i < MAX_PROBLEMS + 5; i++) tally.warmed(`/${i}`, 'shield', warmed('failed'));
    const report = tally.report(CALL);
    expect(report.shield.failed).toBe(MAX_PROBLEMS + 5);
    expect(report.problems).toHaveLength(MAX_PROBLEMS);
  });
});
