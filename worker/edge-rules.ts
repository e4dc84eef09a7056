// The rules at the edge that change what the client gets (shared/rules/client-rules.ts): which apply to a request,
// remembered per isolate by method and raw URL so that a hit pays a Map lookup for them, and the answers they make.
// Nothing here is stored: the stored entry, its key and the CDN's own freshness are the tiers' as without rules.

import type { Config } from '../shared/config/config.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import { isReserved } from '../shared/request/reserved-paths.ts';
import { type ClientRules, clientRules, rulesEditClients } from '../shared/rules/client-rules.ts';
import { editAnswerHeaders } from '../shared/rules/header-edits.ts';
import { redirectLocation } from '../shared/rules/redirect-location.ts';
import type { RedirectStatus } from '../shared/rules/rules.ts';
import { applyRules } from '../shared/rules/rules-match.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import { BoundedMemo } from './bounded-memo.ts';
import { forwardedPath, knownAddress } from './edge-address.ts';

/** RFC 9110 §15.4: the reason phrases of the redirects a rule or FOLDER_REDIRECT answers with, for the short body. */
const REDIRECT_REASONS: Record<RedirectStatus, string> = {
  301: 'Moved Permanently',
  302: 'Found',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
};

/** Method → raw URL → what the rules say (null: nothing for the client). */
type Remembered = Map<string, BoundedMemo<ClientRules | null>>;

/** Per configuration: what is remembered, or null when no rule changes a client's answer (nothing to remember). */
const remembered = new WeakMap<Config, Remembered | null>();

/**
 * The rules' edits of the client's answer, for a memory hit to carry in its headers: those of the request
 * site-responses.ts looked up (`known`, the EdgeRequest's `client`), none for a document read for another request's
 * answer (a 404 page, a fallback), which gets that request's edits afterwards, as on the full path.
 */
export function clientRulesOfHit(
  request: Request,
  known: { request: Request; rules: ClientRules } | undefined,
): ClientRules | undefined {
  return known?.request === request ? known.rules : undefined;
}

/**
 * What the rules say of the client's answer to `request`; undefined when nothing (no RULES, no rule with a
 * client-side field, none matching, or one of the tiers' own paths, which rules never touch).
 */
export function edgeClientRules(request: Request, config: Config): ClientRules | undefined {
  if (config.rules.list.length === 0) return undefined;
  let memo = remembered.get(config);
  if (memo === undefined) {
    memo = rulesEditClients(config.rules) ? new Map() : null;
    remembered.set(config, memo);
  }
  if (memo === null) return undefined;
  const { method, url } = request;
  let byUrl = memo.get(method);
  const known = byUrl?.get(url);
  if (known !== undefined) return known ?? undefined;
  const found = clientRulesOf(url, method, config) ?? null;
  if (byUrl === undefined) {
    // One memo per method the rules were asked about: few (RULE_METHODS and what else clients send, each bounded).
    byUrl = new BoundedMemo();
    if (memo.size < 16) memo.set(method, byUrl);
  }
  byUrl.set(url, found);
  return found ?? undefined;
}

/**
 * The rules matching a request, on the canonical path the edge keys (an index document's included, as
 * edge-address.ts resolves it); a path that names no object (the bucket root without an index document) is matched
 * as its canonical spelling, so a redirect may still answer it.
 */
function clientRulesOf(rawUrl: string, method: string, config: Config): ClientRules | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    // The app answers it with its 400; no rule applies to what is no URL.
    return undefined;
  }
  const canonical = normalizePath(url.pathname);
  if (isReserved(canonical, forwardedPath(url, config))) return undefined;
  const path = knownAddress(rawUrl, config)?.target.path ?? canonical;
  const applied = applyRules(config.rules, { host: url.host, path, method });
  // One object per outcome: what a memory hit baked into its headers is recognised by identity (memory-hit.ts).
  const outcome = `${method} ${applied.matched.join(' ')} ${applied.redirect?.suffix ?? ''}`;
  let outcomes = interned.get(config);
  if (outcomes === undefined || outcomes.size >= MAX_OUTCOMES) {
    outcomes = new Map();
    interned.set(config, outcomes);
  }
  if (!outcomes.has(outcome)) outcomes.set(outcome, clientRules(applied) ?? null);
  return outcomes.get(outcome) ?? undefined;
}

/** The distinct outcomes of the rules, per configuration (few: one per set of rules matched, and redirect suffix). */
const interned = new WeakMap<Config, Map<string, ClientRules | null>>();
const MAX_OUTCOMES = 10_000;

/**
 * Whether a memory hit may carry `client`'s edits in the headers it copies for every hit: only edits of fields the hit
 * never sets itself afterwards (Age, Server-Timing). Judged once per outcome (they are interned).
 */
export function bakeable(client: ClientRules): boolean {
  let judged = bakeableOutcomes.get(client);
  if (judged === undefined) {
    const { set, add, remove } = client.headers;
    const late = (name: string): boolean => name === 'age' || name === 'server-timing';
    judged =
      client.redirect === undefined &&
      !set.some(([name]) => late(name)) &&
      !add.some(([name]) => late(name)) &&
      !remove.some(late);
    bakeableOutcomes.set(client, judged);
  }
  return judged;
}

const bakeableOutcomes = new WeakMap<ClientRules, boolean>();

/**
 * A rule's redirect, answered before any cache is asked: its Location, a short text body (none for HEAD), and this
 * tier's report. RFC 9211 has no word for an answer a cache made up: the member says neither hit nor fwd (nothing
 * was stored or forwarded) and names the rule, as `tiercache-edge; detail=rule:<name>`.
 */
export function redirectAnswer(
  request: Request,
  redirect: NonNullable<ClientRules['redirect']>,
  started: number,
): Response {
  const location = redirectLocation(redirect, new URL(request.url).search);
  const answer = redirectResponse(redirect.status, location, request.method);
  return withTierReport(answer, 'edge', { detail: `rule:${redirect.rule}` }, Date.now() - started);
}

/** A redirect to `location`: its status, its Location and a one-line text body naming both (none for HEAD). */
export function redirectResponse(status: RedirectStatus, location: string, method: string): Response {
  const body = `${status} ${REDIRECT_REASONS[status]}: ${location}\n`;
  const headers = new Headers({
    location,
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(new TextEncoder().encode(body).byteLength),
  });
  return new Response(method === 'HEAD' ? null : body, { status, headers });
}

/**
 * `response` with the rules' Cache-Control and header edits. Edited in place where its headers may be (every answer
 * the edge builds itself, a memory hit's included: no copy of headers or body); one straight from a fetch has
 * immutable headers, and is copied around its body as it is.
 */
export function withClientRules(response: Response, client: ClientRules, method: string): Response {
  try {
    editAnswerHeaders(response.headers, client, method, response.status);
    return response;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  const headers = new Headers(response.headers);
  editAnswerHeaders(headers, client, method, response.status);
  return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
}
