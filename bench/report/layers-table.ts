// The per-layer costs (../workloads/layer-costs.ts) as a table, layer × route, and as the
// "× the time per request" each layer adds over the one beneath it.

import type { LayerName } from '../setup/layers/launchers.ts';
import type { LayerMeasurement, Route } from '../workloads/layer-costs.ts';
import type { Table } from './results.ts';

/** Layer × route; the ratio is to bare workerd's /map, the floor every other figure stands on. */
export function layersTable(measurements: readonly LayerMeasurement[]): Table {
  const floor = reqPerSec(measurements, 'workerd', '/map/1');
  const rows = measurements.map(({ layer, route, result, skipped }) => {
    if (!result) return [layer, route, '—', '—', '—', '—', '—', skipped ?? ''];
    const ratio = floor ? (result.reqPerSec / floor).toFixed(2) : '—';
    const { meanMs, p99Ms } = result.latency;
    return [
      layer,
      route,
      result.reqPerSec.toFixed(0),
      meanMs.toFixed(2),
      p99Ms.toFixed(2),
      ratio,
      String(result.errors + result.non2xx),
      '',
    ];
  });
  return { columns: ['layer', 'route', 'req/s', 'mean ms', 'p99 ms', '× workerd /map', 'errors', 'note'], rows };
}

/** What each layer adds, as "× slower" factors between two cells of the table, where both ran. */
export function layerCosts(measurements: readonly LayerMeasurement[]): string[] {
  const cost = (what: string, faster: number | undefined, slower: number | undefined) =>
    faster && slower ? [`${what}: ${(faster / slower).toFixed(2)}× the time per request`] : [];
  const get = (layer: LayerName, route: Route) => reqPerSec(measurements, layer, route);
  return [
    ...cost(
      "Miniflare's direct socket over bare workerd (Map)",
      get('workerd', '/map/1'),
      get('Miniflare direct socket', '/map/1'),
    ),
    ...cost(
      "Miniflare's entry worker over its direct socket (Map)",
      get('Miniflare direct socket', '/map/1'),
      get('Miniflare entry', '/map/1'),
    ),
    ...cost(
      'the local Cache API simulator over a Map (direct socket)',
      get('Miniflare direct socket', '/map/1'),
      get('Miniflare direct socket', '/cache/1'),
    ),
    ...cost(
      "`wrangler dev` over Miniflare's entry (Map)",
      get('Miniflare entry', '/map/1'),
      get('wrangler dev', '/map/1'),
    ),
  ];
}

function reqPerSec(measurements: readonly LayerMeasurement[], layer: LayerName, route: Route): number | undefined {
  return measurements.find((m) => m.layer === layer && m.route === route)?.result?.reqPerSec;
}
