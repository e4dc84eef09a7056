import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shownNextHop, shownTiers } from '../../../shared/stats/shown-tiers.ts';
import { TIER_NAMES, type TierName } from '../../../shared/tiers/tiers.ts';

const counted = (requests: number) => ({ totals: { requests } });

describe('shownTiers', () => {
  it('shows the edge and the shield whatever they counted, the R2 tier only where it made records', () => {
    expect(shownTiers({ edge: counted(0), shield: counted(0), r2: counted(0) })).toEqual(['edge', 'shield']);
    expect(shownTiers({ edge: counted(5), shield: counted(2), r2: counted(1) })).toEqual(['edge', 'shield', 'r2']);
  });

  it('reads stats.json from an edge older than the R2 tier (no r2 in it) as a deployment without it', () => {
    expect(shownTiers({ edge: counted(1), shield: counted(1) })).toEqual(['edge', 'shield']);
  });

  it('keeps the tiers in their order, nearest the client first, whatever each counted', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), (edge, shield, r2) => {
        const shown = shownTiers({ edge: counted(edge), shield: counted(shield), r2: counted(r2) });
        expect(shown).toEqual(TIER_NAMES.filter((name) => shown.includes(name)));
        expect(shown.includes('r2')).toBe(r2 > 0);
      }),
    );
  });
});

describe('shownNextHop', () => {
  it('is the next tier shown, the origin after the last', () => {
    const without: TierName[] = ['edge', 'shield'];
    expect(without.map((tier) => shownNextHop(without, tier))).toEqual(['shield', 'origin']);
    const all: TierName[] = ['edge', 'shield', 'r2'];
    expect(all.map((tier) => shownNextHop(all, tier))).toEqual(['shield', 'r2', 'origin']);
  });
});
