// The edge's hot path: a plain GET for a fresh whole object in the memory layer, answered before any routing, with
// no Cache API call and no parsing beyond a remembered address.

import { appendCacheStatus, cacheStatusMember, withoutMember } from '../shared/http/cache-status.ts';
import { serverTimingMetric } from '../shared/http/server-timing.ts';
import { targetedFieldsToStrip } from '../shared/http/targeted-cache-control.ts';
import { purgedBy } from '../shared/purge/purge-rules.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { softPurgedAt } from '../shared/purge/soft-purge.ts';
import type { ClientRules } from '../shared/rules/client-rules.ts';
import { editAnswerHeaders } from '../shared/rules/header-edits.ts';
import { ruleDecidedFreshness, ruleDetail } from '../shared/rules/rule-freshness.ts';
import type { AppliedRules } from '../shared/rules/rules.ts';
import { currentAge, remainingFreshness } from '../shared/store/stored-entry.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { tier } from '../shared/tiers/tiers.ts';
import { knownAddress } from './edge-address.ts';
import { edgeMemory } from './edge-cache.ts';
import { bakeable, clientRulesOfHit } from './edge-rules.ts';
import type { EdgeRequest } from './env.ts';
import type { MemoryEntry } from './memory-cache.ts';

/** Request headers that make a GET more than "the whole representation, please". */
const CONDITIONS = ['range', 'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range'];

/**
 * The answer the full read path would send for a fresh hit (serve-object.ts), or undefined for anything else (a range,
 * a condition, HEAD, a stale or purged copy, a miss, a purge list due for a re-read): that takes the full path, which
 * reads the same memory through edge-cache.ts and decides stale use, revalidation and ranges there. Never a promise:
 * a hit costs no turn of the event loop. `url`: the request's, without a signed URL's token (worker/admission.ts).
 */
export function answerFromMemory(request: Request, edge: EdgeRequest, url: string = request.url): Response | undefined {
  if (request.method !== 'GET') return undefined;
  const started = Date.now();
  const { config } = edge;
  const memory = edgeMemory(config);
  if (memory === undefined) return undefined;
  const address = knownAddress(url, config);
  // A bypassed path is never answered from a cache: the full path sends it on (shared/tier/bypass.ts).
  if (address === undefined || address.rules.bypass) return undefined;
  const entry = memory.get(address.key);
  if (entry === undefined || !entry.whole) return undefined;
  for (const name of CONDITIONS) if (request.headers.has(name)) return undefined;
  // The clock entries and purges are timed by (the edge's); `started` is what the hit's duration is measured from.
  const now = edge.clock.now();
  const list = isolatePurges.knownPurgeList(edge.purges, now);
  if (list === undefined) return undefined;
  if (entry.purgeChecked !== list) {
    // Purged: the full path deletes it from the Cache API and memory, and goes upstream.
    if (purgedBy(list, address.purgePath)(entry)) return undefined;
    // Soft-purged: stale, so the full path revalidates it (shared/purge/soft-purge.ts), never a fresh hit here.
    if (softPurgedAt(list, address.purgePath)(entry) !== undefined) return undefined;
    entry.purgeChecked = list;
  }
  const client = clientRulesOfHit(request, edge.client);
  // The rules' edits a hit's headers may carry (edge-rules.ts); site-responses.ts makes the others.
  const baked = client !== undefined && bakeable(client) ? client : undefined;
  const hit = freshHit(entry, now, started, address.rules, baked);
  // Edited once, in the template: site-responses.ts does not edit it again.
  if (hit !== undefined && baked !== undefined) edge.edited = hit;
  // What the stats record needs, known here already (shared/observe/observed.ts).
  if (hit !== undefined) edge.meter.hit = { host: address.host, path: address.purgePath, bytes: entry.body.size };
  return hit;
}

/** A hit's headers: what never changes, and the last full set (they change about once a second). */
interface HitTemplate {
  /**
   * The stored headers and Accept-Ranges (a Headers to copy: workerd builds one from another far faster than from
   * pairs).
   */
  fixed: Headers;
  /** Cache-Status members of the tiers behind (recorded when this tier stored the entry). */
  behind: string | null;
  /** `rule:<name>` when a rule decided the entry's freshness (rule-freshness.ts), as the full path says it. */
  detail: string | undefined;
  /** The rules' edits of the client's answer this template's headers carry (worker/edge-rules.ts), if any. */
  client: ClientRules | undefined;
  /** The headers last answered, for the whole seconds of ttl, Age and edge time they carry. */
  last?: { ttl: number; age: number; durationMs: number; headers: Headers };
}

const templates = new WeakMap<MemoryEntry, HitTemplate>();

/**
 * What serve-object.ts sends for a fresh whole hit (the stored headers, Accept-Ranges, this
 * tier's Cache-Status member and Server-Timing, Age); undefined once the copy is not fresh.
 * Hits within the same second answer copies of one Headers: the response copies it anyway, and
 * setting three fields on each hit cost more than the rest of this function.
 */
function freshHit(
  entry: MemoryEntry,
  now: number,
  started: number,
  rules: AppliedRules,
  baked: ClientRules | undefined,
): Response | undefined {
  const remaining = remainingFreshness(entry.meta, now);
  if (remaining <= 0) return undefined;
  let template = templates.get(entry);
  // The rules' outcomes are interned (edge-rules.ts): a template made for other rules is made again.
  if (template === undefined || template.client !== baked) {
    template = hitTemplate(entry, rules, baked);
    templates.set(entry, template);
  }
  // Cache-Status says whole seconds (RFC 9211 ttl, truncated), Age whole seconds down (RFC 9111 §5.1).
  const ttl = Math.trunc(remaining);
  const age = Math.floor(currentAge(entry.meta, now));
  // workerd holds the clock still while JavaScript runs, so this is almost always 0.
  const durationMs = Date.now() - started;
  const last = template.last;
  if (last !== undefined && last.ttl === ttl && last.age === age && last.durationMs === durationMs) {
    return responseAsIs(entry.body, { status: 200, headers: last.headers });
  }
  const headers = new Headers(template.fixed);
  headers.set(
    'cache-status',
    appendCacheStatus(
      template.behind,
      cacheStatusMember(tier('edge').statusMember, {
        hit: true,
        ttl,
        ...(template.detail === undefined ? {} : { detail: template.detail }),
      }),
    ),
  );
  headers.set('server-timing', serverTimingMetric('edge', durationMs));
  headers.set('age', String(age));
  template.last = { ttl, age, durationMs, headers };
  // The stored bytes: with a Content-Encoding, already encoded.
  return responseAsIs(entry.body, { status: 200, headers });
}

function hitTemplate(entry: MemoryEntry, rules: AppliedRules, client: ClientRules | undefined): HitTemplate {
  const fixed = new Headers(entry.headers);
  for (const name of ['cache-status', 'server-timing', 'age', ...targetedFieldsToStrip('client')]) fixed.delete(name);
  fixed.set('accept-ranges', 'bytes');
  if (client !== undefined) editAnswerHeaders(fixed, client, 'GET', 200);
  const decided = ruleDecidedFreshness(rules, 200, entry.headers);
  return {
    fixed,
    behind: withoutMember(entry.headers.get('cache-status'), tier('edge').statusMember),
    detail: decided === undefined ? undefined : ruleDetail(decided),
    client,
  };
}
