// Soft purge (docs/purge.md "Soft purge"): a record that makes what it matches stale at once instead of removing it,
// as Fastly's Fastly-Soft-Purge and Varnish's xkey.softpurge do. The read path then treats the entry as any expired
// one: revalidated with its stored validators (RFC 9111 §4.3.1), renewed by a 304 (§4.3.4), replaced by a 200. No I/O.

import { currentAge, type EntryMeta, originAt } from '../store/stored-entry.ts';
import { entryTags, hasSoftRecords, newestMatching, type PurgeCandidate, type PurgeList } from './purge-rules.ts';

/**
 * When the newest soft purge matching `entry` at `path` was made (ms epoch), if its bytes came from the origin at or
 * before it; undefined when none matches (the entry is as fresh as its own headers say). `watermark`: the edge's word
 * (SOFT_PURGED_AT_HEADER), when it knows of a soft purge this tier has not read yet.
 */
export function softPurgedAt(
  list: PurgeList,
  path: string,
  watermark?: number,
): (entry: PurgeCandidate) => number | undefined {
  if (!hasSoftRecords(list.records) && watermark === undefined) return () => undefined;
  return (entry) => {
    const origin = originAt(entry.meta);
    // The newest soft purge covering the entry covers whatever an older one did (purge-rules.ts keptList).
    const newest = newestMatching(list.records, path, entryTags(entry.headers), 'soft');
    const told = watermark ?? -Infinity;
    const at = Math.max(origin <= told ? told : -Infinity, origin <= newest ? newest : -Infinity);
    return at === -Infinity ? undefined : at;
  };
}

/**
 * softPurgedAt for the edge, noting the newest soft purge it applied, so that the shield is told (shield-client.ts):
 * a shield that has not read that purge yet must revalidate its own copy rather than confirm the edge's with it.
 * As purgeWatch does for hard purges, one by URL, prefix or everything is told whatever the entry.
 */
export function softPurgeWatch(
  list: PurgeList,
  path: string,
): { softPurgedAt: (entry: PurgeCandidate) => number | undefined; watermark: () => number | undefined } {
  const check = softPurgedAt(list, path);
  // By URL, prefix or everything: told whatever the entry (no tags asked).
  const told = newestMatching(list.records, path, [], 'soft');
  let watermark = told === -Infinity ? undefined : told;
  return {
    softPurgedAt: (entry) => {
      const at = check(entry);
      if (at !== undefined) watermark = Math.max(watermark ?? at, at);
      return at;
    },
    watermark: () => watermark,
  };
}

/**
 * `meta` as it is once soft-purged at `at`: its freshness ends then (RFC 9111 §4.2.1: fresh while its age is below its
 * lifetime, so the lifetime becomes its age at `at`), everything else kept. Its own stale-while-revalidate and
 * stale-if-error windows (RFC 5861) run from that moment, and a soft purge adds no grace of its own: an entry without
 * them is revalidated before it is served again.
 */
export function staleSince(meta: EntryMeta, at: number): EntryMeta {
  return { ...meta, lifetime: Math.max(0, Math.min(meta.lifetime, currentAge(meta, at))) };
}

/** The edge's soft purge watermark (SOFT_PURGED_AT_HEADER), when it sent a valid one. */
export function softPurgedAtHeader(value: string | null): number | undefined {
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
