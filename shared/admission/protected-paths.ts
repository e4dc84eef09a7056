// Which paths need a signature, and what path a token's scope grants, judged on every reading of a path an origin may
// give it: as the tiers forward it, in the spelling they key objects by (shared/request/request-target.ts:
// `/video/%65p1/`, `/video%2Fep1/` in an S3 bucket and `/video/ep1/` are one path), and as the most lenient origins
// resolve it (shared/request/reserved-paths.ts, `resolvedPaths`: `%2F` decoded, slashes merged, `..` removed, as
// nginx, Python's http.server and most static servers do before they open a file), case-folded too for an http origin
// (IIS and case-insensitive file systems). A path is protected when ANY reading lies under a prefix, and a token grants
// it only when EVERY reading lies inside its scope: no spelling of a protected path escapes its prefix, whatever the
// origin makes of it, and a token signed for one spelling grants the others.

import type { OriginKind } from '../config/config.ts';
import { canonicalPrefix } from '../purge/purge-prefix.ts';
import { isReserved, resolvedPaths } from '../request/reserved-paths.ts';
import type { Scope } from './signed-token.ts';

/** A path (or a prefix) in each reading of it. */
export interface PathReadings {
  /** As the tiers forward it: the canonical path. */
  forwarded: string;
  /** As the most lenient origins resolve it (resolvedPaths): one reading, or two. */
  resolved: readonly string[];
}

export class ProtectedPaths {
  readonly #prefixes: readonly (PathReadings & { folded: readonly string[] })[];
  readonly #kind: OriginKind;

  /** `prefixes` as SIGNED_PREFIXES writes them (shared/config/admission-config.ts checked their syntax). */
  constructor(prefixes: readonly string[], kind: OriginKind) {
    this.#kind = kind;
    this.#prefixes = prefixes.map((prefix) => {
      const readings = readingsOf(canonicalScopePath(prefix, kind) ?? prefix);
      return { ...readings, folded: readings.resolved.map((reading) => reading.toLowerCase()) };
    });
  }

  /**
   * Whether a request needs a signature: any of `paths` (its canonical path; with INDEX_DOCUMENT, also the index
   * document's it is served) lies under a prefix by any reading. The tiers' own paths never do: their tokens guard
   * them, and a signature there would lock the operator out of purge and stats (they are never forwarded).
   */
  protects(...paths: readonly string[]): boolean {
    if (!paths.some((path) => this.#under(path))) return false;
    return !isReserved(paths[0] ?? '');
  }

  /** The canonical path a scope grants, in each reading; undefined when it names no path an object could have. */
  scopePath(scope: Scope): PathReadings | undefined {
    const canonical = canonicalScopePath(scope.path, this.#kind);
    return canonical === undefined ? undefined : readingsOf(canonical);
  }

  /**
   * Under a prefix as forwarded, or resolved; an http origin's resolved readings case-folded (which covers them
   * before folding: a path under a prefix stays under it once both are folded). An S3 key is case-sensitive.
   */
  #under(path: string): boolean {
    const fold = this.#kind === 'http';
    const resolved = fold ? resolvedPaths(path).map((reading) => reading.toLowerCase()) : resolvedPaths(path);
    for (const prefix of this.#prefixes) {
      if (path.startsWith(prefix.forwarded)) return true;
      const prefixReadings = fold ? prefix.folded : prefix.resolved;
      if (resolved.some((reading) => prefixReadings.some((under) => reading.startsWith(under)))) return true;
    }
    return false;
  }
}

/**
 * Whether a token's scope (in its readings) grants the request's canonical path: a path scope only that path (equal
 * spellings read alike by every origin), a prefix scope a path every reading of which lies inside it. The case-folded
 * readings need no test of their own here: a path inside the scope stays inside it once both are folded.
 */
export function grants(scope: Scope, scopePath: PathReadings, requestPath: string): boolean {
  if (scope.kind === 'path') return requestPath === scopePath.forwarded;
  if (!requestPath.startsWith(scopePath.forwarded)) return false;
  return resolvedPaths(requestPath).every((reading) =>
    scopePath.resolved.every((inside) => reading.startsWith(inside)),
  );
}

function readingsOf(path: string): PathReadings {
  return { forwarded: path, resolved: resolvedPaths(path) };
}

/** A path (or a prefix) as canonicalPrefix spells it, without INDEX_DOCUMENT: `/docs/` is everything under docs/. */
function canonicalScopePath(path: string, kind: OriginKind): string | undefined {
  const canonical = canonicalPrefix(path, kind);
  return canonical.ok ? canonical.prefix : undefined;
}
