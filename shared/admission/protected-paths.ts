// Which paths need a signature, and what path a token's scope grants, both in the spelling the tiers key objects by
// (shared/request/request-target.ts): `/video/%65p1/`, `/video%2Fep1/` (one S3 key) and `/video/ep1/` are one path,
// so no spelling of a protected path escapes its prefix, and a token signed for one spelling grants the others.

import type { OriginKind } from '../config/config.ts';
import { canonicalPrefix } from '../purge/purge-prefix.ts';
import { isReserved } from '../request/reserved-paths.ts';
import type { Scope } from './signed-token.ts';

export class ProtectedPaths {
  readonly #prefixes: readonly string[];
  readonly #kind: OriginKind;

  /** `prefixes` as SIGNED_PREFIXES writes them (shared/config/admission-config.ts checked their syntax). */
  constructor(prefixes: readonly string[], kind: OriginKind) {
    this.#kind = kind;
    this.#prefixes = prefixes.map((prefix) => canonicalScopePath(prefix, kind) ?? prefix);
  }

  /**
   * Whether `path` (a request's canonical path) needs a signature. The tiers' own paths never do: their tokens guard
   * them, and a signature there would lock the operator out of purge and stats.
   */
  protects(path: string): boolean {
    for (const prefix of this.#prefixes) if (path.startsWith(prefix)) return !isReserved(path);
    return false;
  }

  /** The canonical path a scope grants; undefined when it names no path an object could have. */
  scopePath(scope: Scope): string | undefined {
    return canonicalScopePath(scope.path, this.#kind);
  }
}

/** A path (or a prefix) as canonicalPrefix spells it, without INDEX_DOCUMENT: `/docs/` is everything under docs/. */
function canonicalScopePath(path: string, kind: OriginKind): string | undefined {
  const canonical = canonicalPrefix(path, kind);
  return canonical.ok ? canonical.prefix : undefined;
}

/** Whether a token's canonical scope grants the request's canonical path. */
export function grants(scope: Scope, scopePath: string, requestPath: string): boolean {
  return scope.kind === 'prefix' ? requestPath.startsWith(scopePath) : requestPath === scopePath;
}
