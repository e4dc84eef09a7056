// Cache-Control parsing (RFC 9111 §5.2). Parse once into a small typed value; never throw:
// a malformed directive is ignored, as §4 of RFC 9111 lets a cache do with what it does not
// understand.

import { splitList } from './header-list.ts';

/** Directive name (lowercase) → argument; `true` for a directive without one. */
export type CacheControl = ReadonlyMap<string, string | true>;

export function parseCacheControl(value: string | null | undefined): CacheControl {
  const directives = new Map<string, string | true>();
  if (!value) return directives;
  for (const part of splitList(value)) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (!/^[a-z0-9!#$%&'*+\-.^_`|~]+$/.test(name)) continue;
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
 */
export function directiveSeconds(cc: CacheControl, name: string): number | undefined {
  const value = cc.get(name);
  return typeof value === 'string' ? deltaSeconds(value) : undefined;
}

export function hasDirective(cc: CacheControl, name: string): boolean {
  return cc.has(name);
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
