// Whether a rule decided the freshness an answer is stored with (docs/rules.md): what Cache-Status says as
// `detail=rule:<name>`. Recomputed from the rules and the answer's headers whenever the tier answers (a hit as a
// miss): rules are configuration, so the same RULES give the same word for the same stored entry.

import { directiveSeconds, hasDirective } from '../http/cache-control.ts';
import { hasExplicitFreshness } from '../http/freshness.ts';
import { effectiveCacheControl, TIERCACHE_TARGETS } from '../http/targeted-cache-control.ts';
import type { AppliedRules } from './rules.ts';

/** The `detail` words a tier's Cache-Status member gets for a rule that decided freshness. */
export function ruleDetail(rule: string): string {
  return `rule:${rule}`;
}

/**
 * The name of the rule whose freshness a 2xx/3xx answer is stored with, or undefined when the answer's own word
 * (or the configured defaults) decided: an `override` always decides; an edgeTtl where the answer gives no explicit
 * freshness (RFC 9111 §4.2.1); a stale window where the answer gives none of its own (RFC 5861). 4xx/5xx answers
 * keep NEGATIVE_TTL, which no rule changes.
 */
export function ruleDecidedFreshness(applied: AppliedRules, status: number, headers: Headers): string | undefined {
  const freshness = applied.freshness;
  if (freshness === undefined || status >= 400) return undefined;
  const { cc } = effectiveCacheControl(headers, TIERCACHE_TARGETS);
  // RFC 9111 §3: never stored, whatever a rule says (rules decide how long, never whether).
  if (hasDirective(cc, 'no-store') || hasDirective(cc, 'private')) return undefined;
  if (freshness.override === true) return freshness.rule;
  if (freshness.ttl !== undefined && !hasExplicitFreshness(headers, TIERCACHE_TARGETS)) return freshness.rule;
  const silent = (directive: string, given: number | undefined): boolean =>
    given !== undefined && directiveSeconds(cc, directive) === undefined;
  if (silent('stale-while-revalidate', freshness.staleWhileRevalidate)) return freshness.rule;
  return silent('stale-if-error', freshness.staleIfError) ? freshness.rule : undefined;
}
