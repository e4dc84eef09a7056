// What one isolate gathers between two flushes to the stats store: its records summed per minute, tier, host, outcome
// and reason, and the keys the edge missed; add() is on every request's path, take() hands the sums over as JSON.

import type { TierName } from '../tiers/tiers.ts';
import { admit } from './fold-other.ts';
import type { Outcome, TierRecord } from './record.ts';
import { minuteOf } from './stats-window.ts';
import type { BatchRow, MissRow, StatsBatchJson } from './store-protocol.ts';
import { addRecordInto, emptyTotals } from './totals.ts';

/**
 * The bounds, whatever clients send (hosts and paths are theirs): names past them, first come first kept, are
 * counted under OTHER, so the totals stay exact (a folded record is added to the OTHER row, never dropped).
 */
export const MAX_BATCH_HOSTS = 50;
export const MAX_BATCH_MISS_KEYS = 200;
/** Reasons come from the tiers' own Cache-Status details, a small set: the bound is a guard. */
export const MAX_BATCH_REASONS = 20;

export class StatsBatch {
  private rows = new Map<string, BatchRow>();
  private misses = new Map<string, MissRow>();
  private hosts = new Set<string>();
  private missKeys = new Set<string>();
  private reasons = new Map<string, Set<string>>();
  private count = 0;
  /** The row the last record went to. */
  private last: BatchRow | undefined;

  /** Records added since the last take(). */
  get size(): number {
    return this.count;
  }

  /** Adds into a row it finds by one Map lookup (the last row again, for a run of one kind). */
  add(record: TierRecord): void {
    const minute = minuteOf(record.at);
    const host = admit(this.hosts, record.host, MAX_BATCH_HOSTS);
    const reason =
      record.reason === undefined ? undefined : this.admitReason(record.tier, record.outcome, record.reason);
    // The host's length before it: an identity no host or reason can forge by holding a separator.
    // Runs of one kind (a hot object's hits) find their row again without building its id.
    let row = this.last;
    if (
      row === undefined ||
      row.minute !== minute ||
      row.host !== host ||
      row.tier !== record.tier ||
      row.outcome !== record.outcome ||
      row.reason !== reason
    ) {
      const id = `${minute} ${record.tier} ${record.outcome} ${host.length} ${host}${reason === undefined ? '' : `=${reason}`}`;
      row = this.rows.get(id);
      if (row === undefined) {
        row = {
          minute,
          tier: record.tier,
          host,
          outcome: record.outcome,
          ...(reason === undefined ? {} : { reason }),
          ...emptyTotals(),
        };
        this.rows.set(id, row);
      }
      this.last = row;
    }
    addRecordInto(row, record);
    if (record.tier === 'edge' && record.outcome === 'miss') this.addMiss(minute, record.keyPrefix);
    this.count += 1;
  }

  /** The batch so far, as JSON; the batch is empty again after it. */
  take(): StatsBatchJson {
    const batch: StatsBatchJson = { rows: [...this.rows.values()], misses: [...this.misses.values()] };
    this.rows = new Map();
    this.misses = new Map();
    this.hosts = new Set();
    this.missKeys = new Set();
    this.reasons = new Map();
    this.last = undefined;
    this.count = 0;
    return batch;
  }

  private admitReason(tier: TierName, outcome: Outcome, reason: string): string {
    const group = `${tier} ${outcome}`;
    let held = this.reasons.get(group);
    if (held === undefined) {
      held = new Set();
      this.reasons.set(group, held);
    }
    return admit(held, reason, MAX_BATCH_REASONS);
  }

  private addMiss(minute: number, keyPrefix: string): void {
    const key = admit(this.missKeys, keyPrefix, MAX_BATCH_MISS_KEYS);
    const id = `${minute} ${key}`;
    const row = this.misses.get(id);
    if (row === undefined) this.misses.set(id, { minute, key, misses: 1 });
    else row.misses += 1;
  }
}
