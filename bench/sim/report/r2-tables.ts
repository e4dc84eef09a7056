// The table of the R2 tier's run (`--r2-tier`): each system behind small caches, what the origin sent it, what its R2
// tier did and kept, and the month at this rate (r2-summary.ts).

import type { Table } from '../../report/results.ts';
import type { SimTopology } from '../topology.ts';
import type { SimReport } from './sim-report.ts';

const MB = 1e6;
const MiB = 2 ** 20;

/** The titled table, none when the run had no small caches. */
export function r2Sections(report: SimReport, topology: SimTopology): [string, Table][] {
  const small = topology.smallCaches;
  if (small === undefined) return [];
  const title = `The R2 tier (--r2-tier): a location's Cache API of ${small.edgeBytes / MiB} MiB, the shield's ${small.shieldBytes / MiB} MiB; a month at this rate, every unit priced`;
  const usd = (value: number): string => `$${value.toFixed(2)}`;
  const rows = report.systems.flatMap((system) => {
    const r2 = system.r2;
    if (r2 === undefined) return [];
    const tally = r2.tally;
    const counts =
      tally === undefined
        ? ['—', '—', '—', '—', '—', '—']
        : [
            String(tally.objects),
            (tally.bytes / MB).toFixed(1),
            String(tally.gets + tally.heads),
            (tally.readBytes / MB).toFixed(1),
            String(tally.puts),
            String(tally.lists),
          ];
    return [
      [
        system.name,
        (r2.originBytes / MB).toFixed(1),
        system.originPerUnique === undefined ? 'n/a' : system.originPerUnique.toFixed(2),
        ...counts,
        usd(r2.month.egressUSD),
        usd(r2.month.storageUSD),
        usd(r2.month.operationsUSD),
        usd(r2.month.totalUSD),
      ],
    ];
  });
  return [
    [
      title,
      {
        columns: [
          'system',
          'origin MB',
          'origin/unique',
          'R2 objects',
          'R2 MB kept',
          'R2 gets',
          'R2 MB read',
          'R2 puts',
          'R2 lists',
          'origin egress',
          'R2 storage',
          'R2 operations',
          'a month',
        ],
        rows,
      },
    ],
  ];
}
