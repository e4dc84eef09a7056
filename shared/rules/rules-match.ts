// Which rules match a request, and what they add up to: every matching rule applies, in order, a later one winning a
// field over an earlier one (as Cloudflare's Cache Rules combine); header edits accumulate.

import {
  type AppliedRules,
  type HeaderEdits,
  NOTHING_APPLIED,
  type Rule,
  type RuleFreshness,
  type RuleMatch,
  type Rules,
} from './rules.ts';

/** What a rule may look at: nothing outside the cache key but the method (rules-document.ts keeps that harmless). */
export interface RuleRequest {
  /** The Host, as the request gave it (a port is ignored). */
  host: string;
  /** The canonical path the cache keys (request-target.ts). */
  path: string;
  method: string;
}

/** The rules that match `request`, combined. */
export function applyRules(rules: Rules, request: RuleRequest): AppliedRules {
  if (rules.list.length === 0) return NOTHING_APPLIED;
  const host = hostName(request.host);
  const extension = extensionOf(request.path);
  let applied: AppliedRules | undefined;
  for (const rule of rules.list) {
    const suffix = matchedSuffix(rule.match, host, request.path, extension, request.method);
    if (suffix === undefined) continue;
    applied = combined(applied ?? { ...NOTHING_APPLIED, matched: [] }, rule, suffix);
  }
  return applied ?? NOTHING_APPLIED;
}

/**
 * Undefined when the rule does not match; else what follows the `*`-ended path pattern that matched (`''` for any
 * other pattern, or none): the suffix a redirect may carry over.
 */
function matchedSuffix(
  match: RuleMatch,
  host: string,
  path: string,
  extension: string | undefined,
  method: string,
): string | undefined {
  if (match.methods !== undefined && !match.methods.some((allowed) => allowed === method)) return undefined;
  if (match.hosts !== undefined && !match.hosts.some((pattern) => hostMatches(pattern, host))) return undefined;
  if (match.extensions !== undefined && (extension === undefined || !match.extensions.includes(extension))) {
    return undefined;
  }
  if (match.paths === undefined) return '';
  for (const pattern of match.paths) {
    if (!globMatches(pattern, path)) continue;
    const star = pattern.indexOf('*');
    return star === pattern.length - 1 ? path.slice(star) : '';
  }
  return undefined;
}

function combined(before: AppliedRules, rule: Rule, suffix: string): AppliedRules {
  const applied: { -readonly [K in keyof AppliedRules]: AppliedRules[K] } = {
    ...before,
    matched: [...before.matched, rule.name],
  };
  if (rule.freshness !== undefined) applied.freshness = freshnessOf(before.freshness, rule.freshness, rule.name);
  if (rule.browserCacheControl !== undefined) applied.browserCacheControl = rule.browserCacheControl;
  if (rule.headers !== undefined) applied.headers = editsOf(before.headers, rule.headers);
  if (rule.bypass !== undefined) {
    applied.bypass = rule.bypass;
    if (rule.bypass) applied.bypassRule = rule.name;
    else delete applied.bypassRule;
  }
  if (rule.redirect !== undefined) applied.redirect = { ...rule.redirect, rule: rule.name, suffix };
  if (rule.spaFallback !== undefined) applied.spaFallback = { rule: rule.name, path: rule.spaFallback };
  if (rule.cacheKeyQuery !== undefined) applied.cacheKeyQuery = rule.cacheKeyQuery;
  return applied;
}

function freshnessOf(
  before: (RuleFreshness & { rule: string }) | undefined,
  given: RuleFreshness,
  rule: string,
): RuleFreshness & { rule: string } {
  const fields = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  return { ...before, ...fields, rule };
}

function editsOf(before: HeaderEdits, given: HeaderEdits): HeaderEdits {
  return {
    set: [...before.set, ...given.set],
    add: [...before.add, ...given.add],
    remove: [...before.remove, ...given.remove],
  };
}

/** `*.example.com` matches a subdomain of example.com; any other pattern one name exactly. */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/** The host name alone, lower case: `Example.COM:8443` is `example.com`; an IPv6 literal keeps its brackets. */
export function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end < 0 ? lower : lower.slice(0, end + 1);
  }
  const colon = lower.indexOf(':');
  return colon < 0 ? lower : lower.slice(0, colon);
}

/** The last segment's extension, lower case, without the dot; undefined when it has none (`/a`, `/a.`, `/.env`). */
export function extensionOf(path: string): string | undefined {
  const segment = path.slice(path.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  if (dot <= 0 || dot === segment.length - 1) return undefined;
  return segment.slice(dot + 1).toLowerCase();
}

/** `*` matches any run of characters, `/` included; everything else matches itself. */
export function globMatches(pattern: string, path: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  if (parts.length === 1) return pattern === path;
  if (!path.startsWith(first)) return false;
  const last = parts[parts.length - 1] ?? '';
  if (path.length - first.length < last.length || !path.endsWith(last)) return false;
  // The middle parts, leftmost first, between the prefix and the suffix: leftmost matching is enough with `*` alone.
  let at = first.length;
  const end = path.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = path.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
