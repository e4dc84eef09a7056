// Cache-Control parsing (RFC 9111 §5.2), once, into a small typed value; never throws.

import { splitList } from './header-list.ts';

/** Directive name (lowercase) → argument; `true` for a directive without one. */
export type CacheControl = ReadonlyMap<string, string | true>;

/** RFC 9110 §5.6.2 token, lowercased: directive names compare case-insensitively (RFC 9111 §5.2). */
const TOKEN = /^[a-z0-9!#$%&'*+\-.^_`|~]+$/;

export function parseCacheControl(value: string | null | undefined): CacheControl {
  const directives = new Map<string, string | true>();
  if (!value) return directives;
  for (const part of splitList(value)) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    // A malformed directive is ignored, as RFC 9111 §4 lets a cache do with what it does not understand.
    if (!TOKEN.test(name)) continue;
    // RFC 9111 §4.2.1: "When there is more than one value present for a given directive ...
    // either the first occurrence should be used or the response should be considered stale."
    if (directives.has(name)) continue;
    directives.set(name, eq === -1 ? true : unquote(part.slice(eq + 1).trim()));
  }
  return directives;
}

/**
 * A delta-seconds argument (RFC 9111 §1.2.2), or undefined when absent or malformed.
 * Values past 2^31 are clamped to 2147483648 as the RFC asks.
 *
 * The quoted form `max-age="3600"` reads as 3600. §5.2.2.1 says a sender MUST NOT generate
 * it, but §5.2 says of arguments "recipients ought to accept both forms, even if a specific
 * form is required for generation"; http-cache-semantics strips the quotes too, and
 * cache-tests.fyi (cc-parse, freshness-max-age-quoted) expects the response reused. A
 * single-quoted `'3600'` is no HTTP syntax at all: invalid (freshness-max-age-single-quoted).
 */
export function directiveSeconds(cc: CacheControl, name: string): number | undefined {
  const value = cc.get(name);
  return typeof value === 'string' ? deltaSeconds(value) : undefined;
}

export function hasDirective(cc: CacheControl, name: string): boolean {
  return cc.has(name);
}

/**
 * The field names a qualified `no-cache` or `private` lists (RFC 9111 §5.2.2.4, §5.2.2.7:
 * `#field-name`; a quoted-string is what senders SHOULD use, a token is accepted as §5.2 asks
 * of recipients), lowercased and without repeats; `true` for the unqualified directive;
 * undefined when absent. An argument that names no field, or holds anything but field names,
 * is read as the unqualified directive: its strongest meaning, rather than a guess.
 */
export function directiveFields(cc: CacheControl, name: string): readonly string[] | true | undefined {
  const value = cc.get(name);
  if (value === undefined || value === true) return value;
  // RFC 9110 §5.6.1: a recipient tolerates empty list elements.
  const fields = splitList(value).map((field) => field.toLowerCase());
  if (fields.length === 0 || !fields.every((field) => TOKEN.test(field))) return true;
  return [...new Set(fields)];
}

const MAX_DELTA = 2_147_483_648;

function deltaSeconds(value: string): number | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  return Math.min(Number(value), MAX_DELTA);
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}
