// What `npm start` says of objects the origin gives no freshness (no Cache-Control max-age or s-maxage, no
// Expires): stored for DEFAULT_TTL, or, where it is 0 (an `http` origin's default), for the RFC 9111 §4.2.2
// heuristic, which needs a Last-Modified. Said in numbers at start, since "a new upload is not stored" is
// otherwise the first thing a user of an `http` origin meets (docs/caching.md "Caching rules").

import type { Config } from '../shared/config/config.ts';
import { HEURISTIC_CAP, HEURISTIC_FRACTION } from '../shared/http/freshness.ts';

/** What Varnish stores an answer without freshness for (its `default_ttl` parameter, 120 s), offered as the way out. */
const VARNISH_DEFAULT_TTL = 120;
/** The example age the heuristic is shown for. */
const AN_HOUR = 3600;

export function defaultFreshnessLine(config: Config): string {
  const ruled = config.rules.list.length > 0 ? "; a matching rule's edgeTtl in its place" : '';
  const what = '  fresh   objects without Cache-Control or Expires:';
  if (config.defaultTtl > 0) return `${what} stored for ${config.defaultTtl} s (DEFAULT_TTL)${ruled}`;
  const percent = Math.round(HEURISTIC_FRACTION * 100);
  const example = Math.min(HEURISTIC_CAP, Math.floor(AN_HOUR * HEURISTIC_FRACTION));
  return `${what} ${percent}% of the time since their Last-Modified, at most ${HEURISTIC_CAP} s (RFC 9111 §4.2.2: uploaded an hour ago, ${example} s); without Last-Modified, not stored: set DEFAULT_TTL=${VARNISH_DEFAULT_TTL} (as Varnish) or a rule's edgeTtl to store them${ruled}`;
}
