// What a warm call answers (docs/warming.md "The report"): per tier, how many objects it warmed, found already cached,
// or failed to store, and their bytes; the targets skipped (out of scope, or bypassed by a rule); where the next call
// starts. Pure: the tally a call keeps as its targets finish, and the answer made of it.

import type { ObjectWarmed } from '../hop/warm-protocol.ts';
import type { WarmTier } from './warm-request.ts';

/** One tier's share of a call. */
export interface TierTally {
  warmed: number;
  cached: number;
  failed: number;
  /** Body bytes read through the tier to store them (never held: drained as they passed). */
  bytes: number;
  /** Of them, the bytes fetched from the origin. */
  originBytes: number;
}

/** A target that failed or was skipped, and why. */
export interface WarmProblem {
  url: string;
  /** The tier it failed at; absent for a target skipped before any was asked. */
  tier?: 'shield' | 'edge';
  status?: number;
  reason: string;
}

/** A call's answer. */
export interface WarmReport {
  tier: WarmTier;
  /** The edge location whose cache was warmed too (tier "both"): the data center that took the call. */
  location?: string;
  /** Targets in the request's list (its URLs, and what its prefixes expand to), each once. */
  total: number;
  /** Where this call started in the list. */
  from: number;
  /** Where the next call starts (send the same body with this `from`); null when the list is done. */
  next: number | null;
  /** Targets this call finished: warmed, cached, failed or skipped. */
  done: number;
  /** Targets skipped: another host, a path the tiers keep, outside their prefix, no URL, or bypassed by a rule. */
  skipped: number;
  shield: TierTally;
  /** This location's edge (tier "both" only). */
  edge?: TierTally;
  /** Playlists read to expand the prefixes. */
  playlists: number;
  /** Subrequests this call spent of its budget (the edge's invocation; each shield warm spends its own). */
  subrequests: number;
  /** The first MAX_PROBLEMS targets that failed or were skipped. */
  problems: WarmProblem[];
}

/** Problems a report lists; the counts hold them all. */
export const MAX_PROBLEMS = 50;

/** A call's tally, as its targets finish. */
export class WarmTally {
  private readonly tiers = { shield: emptyTally(), edge: emptyTally() };
  private readonly problems: WarmProblem[] = [];
  private finished = 0;
  private skips = 0;

  /**
   * A target's part at `tier`. `last`: false when another tier's part is to follow (warming both), and the target is
   * finished only by that one, unless this part failed or was skipped (then nothing follows).
   */
  warmed(url: string, tier: 'shield' | 'edge', warmed: ObjectWarmed, last = true): void {
    if (warmed.outcome === 'skipped') {
      this.skip(url, warmed.reason ?? 'skipped');
      return;
    }
    const tally = this.tiers[tier];
    tally[warmed.outcome]++;
    tally.bytes += warmed.bytes;
    tally.originBytes += warmed.originBytes;
    if (warmed.outcome === 'failed') {
      this.problem({ url, tier, status: warmed.status, reason: warmed.reason ?? `answered ${warmed.status}` });
    }
    if (last || warmed.outcome === 'failed') this.finished++;
  }

  /** A target skipped before any tier was asked, or bypassed by a rule. */
  skip(url: string, reason: string): void {
    this.skips++;
    this.finished++;
    this.problem({ url, reason });
  }

  /** The answer, with what only the call knows. */
  report(call: Omit<WarmReport, 'done' | 'skipped' | 'shield' | 'edge' | 'problems'>): WarmReport {
    return {
      ...call,
      done: this.finished,
      skipped: this.skips,
      shield: { ...this.tiers.shield },
      ...(call.tier === 'both' ? { edge: { ...this.tiers.edge } } : {}),
      problems: [...this.problems],
    };
  }

  private problem(problem: WarmProblem): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(problem);
  }
}

function emptyTally(): TierTally {
  return { warmed: 0, cached: 0, failed: 0, bytes: 0, originBytes: 0 };
}
