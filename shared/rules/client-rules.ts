// What of the rules matching a request reaches the client's answer at the edge (docs/rules.md, "What the client
// gets"): its Cache-Control, header edits, a redirect, a single-page-app fallback. Nothing of it is stored, so it is
// decided at the edge alone, per answer, and a change of RULES needs no purge.

import type { AppliedRules, HeaderEdits, RuleRedirect, Rules } from './rules.ts';

/** The client-side part of AppliedRules; only built when there is something in it. */
export interface ClientRules {
  /** The Cache-Control a 2xx or 304 answer to GET or HEAD gets in place of its own. */
  browserCacheControl: string | undefined;
  /** Edits of every matching rule, applied to every answer to the request (header-edits.ts). */
  headers: HeaderEdits;
  /** Whether `headers` edits anything: the hot path skips an empty list without looking into it. */
  editsHeaders: boolean;
  /** Answered at the edge before any cache is asked (redirect-location.ts). */
  redirect: (RuleRedirect & { rule: string; suffix: string }) | undefined;
  /** The path served with 200 for a GET or HEAD whose key does not exist. */
  spaFallback: { rule: string; path: string } | undefined;
}

/** Whether any rule of `rules` changes what a client gets: when none does, the edge takes no step for rules. */
export function rulesEditClients(rules: Rules): boolean {
  return rules.list.some(
    (rule) =>
      rule.browserCacheControl !== undefined ||
      (rule.headers !== undefined && editCount(rule.headers) > 0) ||
      rule.redirect !== undefined ||
      rule.spaFallback !== undefined,
  );
}

/** The client-side part of `applied`; undefined when the rules that matched change nothing for the client. */
export function clientRules(applied: AppliedRules): ClientRules | undefined {
  const { browserCacheControl, headers, redirect, spaFallback } = applied;
  const editsHeaders = editCount(headers) > 0;
  if (browserCacheControl === undefined && !editsHeaders && redirect === undefined && spaFallback === undefined) {
    return undefined;
  }
  return { browserCacheControl, headers, editsHeaders, redirect, spaFallback };
}

function editCount(edits: HeaderEdits): number {
  return edits.set.length + edits.add.length + edits.remove.length;
}
