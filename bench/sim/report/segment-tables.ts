// The tables of a run whose playlists name segments (`--hls`, and the default run's HLS viewers): the segments' first
// bytes per system, what prefetching cost (the system's counts beside the origin's), and prefetching off against on,
// request by request (segment-summary.ts).

import type { Table } from '../../report/results.ts';
import type { Spread } from './endpoint-summary.ts';
import { NOTICEABLE_MS } from './segment-summary.ts';
import type { SimReport } from './sim-report.ts';

const MB = 1e6;

/** The titled tables, none when no system answered a segment. */
export function segmentSections(report: SimReport): [string, Table][] {
  if (!report.systems.some((system) => system.segments !== undefined)) return [];
  const sections: [string, Table][] = [
    ['Segments: first bytes (ms), every location', firstBytesTable(report)],
    ['Segment prefetching: what it fetched, and what no client asked for', costTable(report)],
  ];
  if (report.prefetchPairs !== undefined)
    sections.push(['Prefetching off against on, request by request: the segments of both runs', pairsTable(report)]);
  return sections;
}

function firstBytesTable(report: SimReport): Table {
  const cells = (spread: Spread): string[] => [String(spread.count), ms(spread.p50), ms(spread.p99)];
  return {
    columns: ['system', 'segments', 'p50', 'p99', 'past the edge', 'p50', 'p99', 'shield hits', 'misses', 'p50', 'p99'],
    rows: report.systems.flatMap((s) => {
      const g = s.segments;
      if (g === undefined) return [];
      return [
        [
          s.name,
          ...cells(g.all),
          ...cells(g.atShield),
          g.atShield.count === 0 ? 'n/a' : `${((100 * g.shieldHits) / g.atShield.count).toFixed(1)} %`,
          ...cells(g.misses),
        ],
      ];
    }),
  };
}

function costTable(report: SimReport): Table {
  return {
    columns: [
      'system',
      'origin/unique',
      'of it, asked bytes fetched',
      'prefetched (used, wasted, pending)',
      'prefetched MB (wasted)',
      'origin answers no client asked for',
      'their MB',
      'of origin bytes',
    ],
    rows: report.systems.flatMap((s) => {
      const g = s.segments;
      if (g === undefined) return [];
      const p = g.prefetches;
      const pending = p === undefined ? 0 : p.prefetched - p.prefetchesUsed - p.prefetchesWasted;
      return [
        [
          s.name,
          s.originPerUnique === undefined ? 'n/a' : s.originPerUnique.toFixed(3),
          // What the origin sent for the paths clients asked for, over the unique bytes they asked: 1.00 is each once.
          s.uniqueBytes === 0 ? 'n/a' : ((s.originBytes - g.unaskedBytes) / s.uniqueBytes).toFixed(3),
          p === undefined ? 'n/a' : `${p.prefetched} (${p.prefetchesUsed}, ${p.prefetchesWasted}, ${pending})`,
          p === undefined ? 'n/a' : `${(p.prefetchBytes / MB).toFixed(2)} (${(p.prefetchWastedBytes / MB).toFixed(2)})`,
          String(g.unaskedRequests),
          (g.unaskedBytes / MB).toFixed(2),
          g.unaskedShare === undefined ? 'n/a' : `${(g.unaskedShare * 100).toFixed(2)} %`,
        ],
      ];
    }),
  };
}

function pairsTable(report: SimReport): Table {
  const pairs = report.prefetchPairs;
  const arrow = (off: Spread, on: Spread, p: 'p50' | 'p90' | 'p99'): string => `${ms(off[p])} → ${ms(on[p])}`;
  const rows: string[][] = [];
  if (pairs !== undefined) {
    const { coldMisses: cold, all } = pairs;
    rows.push(
      [
        'misses at a cold shield without prefetching',
        String(cold.off.count),
        arrow(cold.off, cold.on, 'p50'),
        arrow(cold.off, cold.on, 'p90'),
        arrow(cold.off, cold.on, 'p99'),
        String(cold.hits),
        String(cold.sooner),
        String(cold.later),
      ],
      [
        'every segment',
        String(all.off.count),
        arrow(all.off, all.on, 'p50'),
        arrow(all.off, all.on, 'p90'),
        arrow(all.off, all.on, 'p99'),
        '',
        '',
        '',
      ],
    );
  }
  return {
    columns: [
      'segment requests',
      'pairs',
      'p50 off → on',
      'p90 off → on',
      'p99 off → on',
      'hits with prefetching',
      `sooner by > ${NOTICEABLE_MS} ms`,
      `later by > ${NOTICEABLE_MS} ms`,
    ],
    rows,
  };
}

function ms(value: number): string {
  return Number.isNaN(value) ? 'n/a' : value.toFixed(0);
}
