// GET /__tiercache/stats and stats.json (docs/operating.md): what every tier counted in the last hour, from every shard
// of the stats store merged, with the recent purges; behind STATS_TOKEN (Bearer for the CLI, a Basic password for a
// browser).

import { statsAdmission } from '../shared/admission/tier-credentials.ts';
import { Forbidden, Unauthorized } from '../shared/http/errors.ts';
import { flushStats } from '../shared/observe/record-sinks.ts';
import { readStats } from '../shared/observe/stats-store-client.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { statsPage } from '../shared/stats/stats-page.ts';
import { statsView } from '../shared/stats/stats-view.ts';
import { DEFAULT_WINDOW_MINUTES } from '../shared/stats/stats-window.ts';
import { STATS_SHARDS } from '../shared/stats/store-shards.ts';
import type { EdgeBindings } from './env.ts';

/** RFC 9110 §11.6.1: a 401 names the schemes it takes; a browser offers its login box for Basic. */
const CHALLENGE = 'Basic realm="tiercache stats", Bearer realm="tiercache stats"';

/**
 * The page or stats.json. The purge list is read on the clock entries are timed by (the edge's), as every other read
 * of it; the buckets are on the store's own clock.
 */
export async function answerStats(request: Request, edge: EdgeBindings, format: 'html' | 'json'): Promise<Response> {
  const { observability } = edge.config;
  const admission = statsAdmission(request.headers.get('authorization'), observability.statsToken);
  if (admission === 'disabled') throw new Forbidden('stats are disabled: set the STATS_TOKEN secret to enable them');
  if (admission === 'unauthorized') {
    throw new Unauthorized(
      'stats need Authorization: Bearer <STATS_TOKEN> (or the token as a Basic password)',
      CHALLENGE,
    );
  }
  if (edge.stats === undefined)
    throw new Forbidden('stats need the STATS Durable Object binding (the deployment binds it)');
  // This isolate's own counts first, so the page includes the requests just made through it.
  await flushStats(edge.stats, 0);
  const now = Date.now();
  const [{ buckets, shardsWithCounts }, purges] = await Promise.all([
    readStats(edge.stats, DEFAULT_WINDOW_MINUTES),
    isolatePurges.purgeRecords(edge.purges, edge.clock.now()),
  ]);
  // What the window cost is priced for this deployment: its slice size, its Analytics Engine binding, its log sample.
  const deployment = {
    sliceBytes: edge.config.slicing.sliceSize,
    analytics: edge.observed.sinks.analytics !== undefined,
    logSample: observability.logSample,
  };
  const view = statsView(buckets, purges, now, observability.egressPricePerTB, DEFAULT_WINDOW_MINUTES, deployment);
  // Per-user and live: never stored anywhere (RFC 9111 §5.2.2.5 no-store).
  const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  // The store's shards (shared/stats/store-shards.ts): how many there are and how many held counts of the window.
  const store = { shards: STATS_SHARDS, shardsWithCounts };
  if (format === 'json') return Response.json({ ...view, flushMs: observability.flushMs, store }, { headers });
  return new Response(statsPage(view), {
    headers: {
      ...headers,
      'content-type': 'text/html; charset=utf-8',
      // One self-contained page: inline styles and SVG, nothing else may load or run.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'",
    },
  });
}
