// The tables of a run on an origin at several endpoints (`--slow-endpoint`): the misses' first bytes per system (all,
// those of a path the slow endpoint held, the others), the endpoints and the hedges' egress, and hedging off against
// on request by request (hedge-pairs.ts).

import type { Table } from '../../report/results.ts';
import type { Spread } from './endpoint-summary.ts';
import { NOTICEABLE_MS, type PairedMisses } from './hedge-pairs.ts';
import type { SimReport } from './sim-report.ts';

const MB = 1e6;

/** The titled tables, none when no system ran on several endpoints. */
export function endpointSections(report: SimReport): [string, Table][] {
  if (!report.systems.some((system) => system.endpoints !== undefined)) return [];
  return [
    ['Origin endpoints (--slow-endpoint): misses’ first bytes (ms), every location', missesTable(report)],
    ['Origin endpoints: what each saw, and the hedges’ egress', egressTable(report)],
    ...(report.hedgePairs === undefined
      ? []
      : [
          ['Hedging off against on, request by request: the misses of both runs', pairsTable(report)] as [
            string,
            Table,
          ],
        ]),
  ];
}

function missesTable(report: SimReport): Table {
  const cells = (spread: Spread, p90 = true): string[] => [
    String(spread.count),
    spread.p50.toFixed(0),
    ...(p90 ? [spread.p90.toFixed(0)] : []),
    spread.p99.toFixed(0),
  ];
  return {
    columns: [
      'system',
      'misses',
      'p50',
      'p90',
      'p99',
      'of a held path',
      'p50',
      'p90',
      'p99',
      'of other paths',
      'p50',
      'p99',
    ],
    rows: report.systems.flatMap((s) =>
      s.endpoints === undefined
        ? []
        : [
            [
              s.name,
              ...cells(s.endpoints.misses),
              ...cells(s.endpoints.heldMisses),
              ...cells(s.endpoints.otherMisses, false),
            ],
          ],
    ),
  };
}

function egressTable(report: SimReport): Table {
  return {
    columns: [
      'system',
      'endpoint requests (held)',
      'given up',
      'given-up bytes passed on MB',
      'of origin bytes',
      'origin bytes beyond unique, of origin bytes (hedge egress at most)',
    ],
    rows: report.systems.flatMap((s) => {
      const e = s.endpoints;
      if (e === undefined) return [];
      return [
        [
          s.name,
          e.endpoints.map((endpoint) => `${endpoint.requests} (${endpoint.held})`).join(', '),
          String(e.endpoints.reduce((sum, endpoint) => sum + endpoint.gaveUp, 0)),
          (e.gaveUpBytes / MB).toFixed(3),
          share(e.gaveUpShare),
          share(e.beyondUniqueShare),
        ],
      ];
    }),
  };
}

function pairsTable(report: SimReport): Table {
  const row = (name: string, paired: PairedMisses): string[] => [
    name,
    String(paired.off.count),
    `${paired.off.p50.toFixed(0)} → ${paired.on.p50.toFixed(0)}`,
    `${paired.off.p90.toFixed(0)} → ${paired.on.p90.toFixed(0)}`,
    `${paired.off.p99.toFixed(0)} → ${paired.on.p99.toFixed(0)}`,
    String(paired.sooner),
    String(paired.later),
  ];
  const pairs = report.hedgePairs;
  return {
    columns: [
      'misses in both runs',
      'pairs',
      'p50 off → on',
      'p90 off → on',
      'p99 off → on',
      `sooner by > ${NOTICEABLE_MS} ms`,
      `later by > ${NOTICEABLE_MS} ms`,
    ],
    rows: pairs === undefined ? [] : [row('all', pairs.all), row('of a held path', pairs.held)],
  };
}

function share(ratio: number | undefined): string {
  return ratio === undefined ? 'n/a' : `${(ratio * 100).toFixed(2)} %`;
}
