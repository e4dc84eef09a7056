// The purge list's head: one KV key every purge request rewrites after its batch, so that an isolate learns whether
// anything changed by one `get` ($0.50 a million) rather than a `list` ($5 a million), and lists only when it did; and
// the location's last read of it, shared by its isolates through the Cache API. No I/O: the rules and the values.
// The reference, with the KV operations each step costs: shared/purge/README.md "The head".

import { REFRESH_MS } from './purge-rules.ts';

/** The head's key: outside PURGE_KEY_PREFIX (purge-batch.ts), so a list of the batches never meets it. */
export const HEAD_KEY = 'purge-head';

/**
 * "Writes to same key: 1 per second" (https://developers.cloudflare.com/kv/platform/limits/): a second write within it
 * is refused (429 Too Many Requests).
 */
export const KV_WRITE_INTERVAL_MS = 1_000;

/**
 * How long past a head's time its readers keep listing at every re-read. A batch whose own head write was skipped (its
 * isolate wrote the head less than KV_WRITE_INTERVAL_MS before) or refused (another write was made within the
 * interval before) was written within a second of a head that was written; its time plus the interval once more (a
 * head's time is taken just before its batch is written) is covered.
 */
export const HEAD_SETTLE_MS = 2 * KV_WRITE_INTERVAL_MS;

/**
 * A list at least this often whatever the head says: the backstop for a head write that failed for another reason than
 * KV's 1-write-a-second (that one is covered, HEAD_SETTLE_MS), which the purge's answer does not see.
 */
export const SAFETY_LIST_MS = 60_000;

/**
 * How old a read of the head an isolate takes from the location's shared copy (the Cache API). The isolate re-reads at
 * most REFRESH_MS after the read it took, not after it took it: a read shared SHARE_MS late only brings the re-read
 * forward, so what it vouches for is never older than REFRESH_MS and the bound (purge-bounds.ts RECORDS_REACH_MS) is
 * unchanged. Half of REFRESH_MS: an isolate takes a shared read at most twice as often as it would read its own.
 */
export const SHARE_MS = REFRESH_MS / 2;

/** What the head says: the time of the newest batch whose writer rewrote it, and an id that differs at every write. */
export interface Head {
  at: number;
  id: string;
}

/** The head's value as stored. */
export function headValue(head: Head): string {
  return JSON.stringify({ at: head.at, id: head.id });
}

/**
 * The head as read: `null` when there is none (no purge wrote one, or it expired); a value that is not a head reads as a
 * head that changes whenever the text does, so an isolate lists rather than trust it.
 */
export function parseHead(text: string | null): Head | null {
  if (text === null) return null;
  const value = parse(text);
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Head).at === 'number' &&
    Number.isFinite((value as Head).at) &&
    typeof (value as Head).id === 'string'
  )
    return { at: (value as Head).at, id: (value as Head).id };
  return { at: Infinity, id: `unreadable:${text.slice(0, 100)}` };
}

/** An isolate's copy as the head rules see it. */
export interface ListedState {
  /** The head's id when this isolate last listed (null: there was none); undefined: it never listed. */
  listedHead: string | null | undefined;
  /** When it last listed (ms epoch, the read's time); -Infinity: never. */
  listedAt: number;
  /** Every batch written at or before this is in its list (KV's propagation assumed). */
  complete: number;
}

/**
 * Whether an isolate that read `head` at `now` must list the batches, and why; undefined: the head vouches that its
 * list is complete up to the read's horizon. It lists when it never listed, when the head changed since its last list,
 * while its list is not yet complete past the head's time and HEAD_SETTLE_MS (a batch written by another location just
 * before that head may become visible after it: KV orders no two keys), and every SAFETY_LIST_MS.
 */
export function listDue(
  state: ListedState,
  head: Head | null,
  now: number,
): 'never listed' | 'head changed' | 'settling' | 'safety' | undefined {
  if (state.listedHead === undefined) return 'never listed';
  if ((head?.id ?? null) !== state.listedHead) return 'head changed';
  if (head !== null && state.complete < head.at + HEAD_SETTLE_MS) return 'settling';
  if (now - state.listedAt >= SAFETY_LIST_MS) return 'safety';
  return undefined;
}

/** A read of the head as the location shares it: the head, and when it was read (ms epoch, the tiers' clock). */
export interface SharedHead {
  head: Head | null;
  readAt: number;
}

/**
 * Whether an isolate at `now` may take the location's shared read instead of reading KV: it is at most SHARE_MS old
 * and newer than the read the isolate holds (`heldReadAt`); a read from the future (another clock) is not believed.
 */
export function sharedUsable(shared: SharedHead | undefined, heldReadAt: number, now: number): shared is SharedHead {
  return shared !== undefined && shared.readAt <= now && now - shared.readAt <= SHARE_MS && shared.readAt > heldReadAt;
}

/** A shared read as stored in the Cache API's body, and read back; undefined when it is not one. */
export function sharedValue(shared: SharedHead): string {
  return JSON.stringify({ readAt: shared.readAt, head: shared.head });
}

export function parseShared(text: string): SharedHead | undefined {
  const value = parse(text) as { readAt?: unknown; head?: unknown } | undefined;
  if (typeof value !== 'object' || value === null || typeof value.readAt !== 'number') return undefined;
  if (!Number.isFinite(value.readAt)) return undefined;
  const head = value.head === null ? null : parseHead(JSON.stringify(value.head));
  if (head !== null && !Number.isFinite(head.at)) return undefined;
  return { readAt: value.readAt, head };
}

/**
 * Whether a purge recorded at `at` writes the head: not when this isolate wrote it less than KV_WRITE_INTERVAL_MS
 * before (KV would refuse it; the readers of that write keep listing past this batch: HEAD_SETTLE_MS).
 */
export function headWriteDue(lastWritten: number | undefined, at: number): boolean {
  return lastWritten === undefined || at - lastWritten >= KV_WRITE_INTERVAL_MS || at < lastWritten;
}

/** Whether a failed KV write was KV's 1-write-a-second refusal (429 Too Many Requests). */
export function refusedAsTooFrequent(error: unknown): boolean {
  return /\b429\b|too many requests/i.test(error instanceof Error ? error.message : String(error));
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
