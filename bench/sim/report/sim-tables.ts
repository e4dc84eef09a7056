// The run as people read it (printed, and sim.md) and as a script reads it: the summary line, printed last, in the
// form scripts read: `sim: locations 6, requests R, origin/unique tiercache X.XX, no-shield Y.YY, varnish Z.ZZ,
// nginx-slice W.WW; ledger exact yes`. A number nothing measured is `n/a`.

import { formatTable, type Table } from '../../report/results.ts';
import type { SystemName } from '../system.ts';
import type { SimTopology } from '../topology.ts';
import { endpointSections } from './endpoint-tables.ts';
import { r2Sections } from './r2-tables.ts';
import { segmentSections } from './segment-tables.ts';
import type { SimReport, SystemSummary } from './sim-report.ts';
import { simTargets } from './sim-targets.ts';

/** The systems the summary line names, in its order. */
const SUMMARY_SYSTEMS: readonly SystemName[] = ['tiercache', 'no-shield', 'varnish', 'nginx-slice'];
const MB = 1e6;

export function summaryLine(report: SimReport): string {
  const ratios = SUMMARY_SYSTEMS.map((name) => {
    const ratio = report.systems.find((system) => system.name === name)?.originPerUnique;
    return `${name} ${ratio === undefined ? 'n/a' : ratio.toFixed(2)}`;
  });
  const ledger = report.systems.find((system) => system.name === 'tiercache')?.ledger;
  const exact = ledger === undefined ? 'n/a' : ledger.exact ? 'yes' : 'no';
  return `sim: locations ${report.locations}, requests ${report.requests}, origin/unique ${ratios.join(', ')}; ledger exact ${exact}`;
}

/** Every table, titled, in Markdown; the summary line last. */
export function simMarkdown(report: SimReport, topology: SimTopology): string {
  const sections: [string, Table][] = [
    ['What each system cost the origin', overviewTable(report.systems)],
    ['Hit ratio and byte hit ratio per tier and location', tiersTable(report.systems, topology)],
    ['Time to first byte (ms) per location and path, beside its floor', firstBytesTable(report.systems, topology)],
    ['Cold crowd: origin answers per slice of the new object', crowdTable(report.systems)],
    ['A purge at one location: until no location serves the purged bytes', purgeTable(report.systems, topology)],
    ['Platform operations', operationsTable(report.systems)],
    ...endpointSections(report),
    ...segmentSections(report),
    ...r2Sections(report, topology),
    ['The targets tiercache is held to', targetsTable(report)],
  ];
  const problems = report.systems.flatMap((system) => system.problems.map((problem) => `- ${system.name}: ${problem}`));
  return [
    `# sim: ${report.locations} locations, ${report.requests} requests, speed ${report.speed}×, ${report.wallSeconds.toFixed(0)} s`,
    ...sections.flatMap(([title, table]) => [`## ${title}`, formatTable(table)]),
    ...(problems.length > 0 ? ['## Problems (first of each system)', problems.join('\n')] : []),
    summaryLine(report),
  ].join('\n\n');
}

function overviewTable(systems: readonly SystemSummary[]): Table {
  return {
    columns: [
      'system',
      'requests',
      'wrong bytes',
      'failures',
      'retried',
      'origin requests',
      'origin MB',
      'unique MB',
      'origin/unique',
      'edge hit',
      'edge byte hit',
      'shield hit',
      'ledger (counted / answered of sent)',
      'client late p99 ms',
      'wall s',
    ],
    rows: systems.map((s) => {
      const all = s.tiers.at(-1);
      return [
        s.error === undefined ? s.name : `${s.name} (failed: ${s.error})`,
        String(s.requests),
        String(s.wrongBytes),
        String(s.failures),
        String(s.retried),
        String(s.originRequests),
        (s.originBytes / MB).toFixed(1),
        (s.uniqueBytes / MB).toFixed(1),
        s.originPerUnique === undefined ? 'n/a' : s.originPerUnique.toFixed(2),
        percent(all?.edge.hitRatio),
        percent(all?.edge.byteHitRatio),
        percent(all?.shield.hitRatio),
        s.ledger === undefined
          ? 'n/a'
          : `${s.ledger.counted ?? '?'} / ${s.ledger.answered} of ${s.ledger.sent} ${s.ledger.exact ? 'exact' : 'NOT exact'}`,
        s.lateP99Ms.toFixed(0),
        s.wallSeconds.toFixed(0),
      ];
    }),
  };
}

function tiersTable(systems: readonly SystemSummary[], topology: SimTopology): Table {
  return {
    columns: ['system', 'location', 'requests', 'edge hit', 'edge byte hit', 'shield hit', 'shield byte hit'],
    rows: systems
      .filter(ran)
      .flatMap((s) =>
        s.tiers.map((row) => [
          s.name,
          row.location === 'all' ? 'all' : (topology.locations[row.location]?.name ?? String(row.location)),
          String(row.requests),
          percent(row.edge.hitRatio),
          percent(row.edge.byteHitRatio),
          percent(row.shield.hitRatio),
          percent(row.shield.byteHitRatio),
        ]),
      ),
  };
}

function firstBytesTable(systems: readonly SystemSummary[], topology: SimTopology): Table {
  return {
    columns: ['system', 'location', 'path', 'n', 'p50', 'p95', 'p99', 'floor', 'p50 ÷ floor'],
    rows: systems.flatMap((s) =>
      s.firstBytes.map((row) => [
        s.name,
        topology.locations[row.location]?.name ?? String(row.location),
        row.path,
        String(row.count),
        row.p50.toFixed(0),
        row.p95.toFixed(0),
        row.p99.toFixed(0),
        Number.isNaN(row.floorMs) ? 'n/a' : row.floorMs.toFixed(0),
        row.floorMs > 0 ? (row.p50 / row.floorMs).toFixed(2) : 'n/a',
      ]),
    ),
  };
}

function crowdTable(systems: readonly SystemSummary[]): Table {
  return {
    columns: [
      'system',
      'object',
      'MB',
      'slices',
      'origin requests',
      'origin MB',
      'answers per slice (max)',
      'per slice',
    ],
    rows: systems
      .filter(ran)
      .flatMap((s) =>
        s.crowd === undefined
          ? []
          : [
              [
                s.name,
                s.crowd.path,
                (s.crowd.size / MB).toFixed(1),
                String(s.crowd.slices),
                String(s.crowd.originRequests),
                (s.crowd.originBytes / MB).toFixed(1),
                String(Math.max(...s.crowd.perSlice)),
                s.crowd.perSlice.join(' '),
              ],
            ],
      ),
  };
}

function purgeTable(systems: readonly SystemSummary[], topology: SimTopology): Table {
  const names = topology.locations.map((location) => location.name);
  return {
    columns: [
      'system',
      'path',
      'at',
      'call ms',
      ...names.map((name) => `${name} ms`),
      'everywhere ms',
      'modelled bound ms',
      'documented bound ms',
    ],
    rows: systems.filter(ran).map((s) => {
      const p = s.purge;
      if (p === undefined)
        return [s.name, 'n/a (no purge that reaches other locations)', ...names.map(() => ''), '', '', '', '', ''];
      return [
        s.name,
        p.path,
        names[p.at] ?? String(p.at),
        p.callMs.toFixed(0),
        ...p.takenMs.map((ms) => (ms === undefined ? 'never' : ms.toFixed(0))),
        p.everywhereMs === undefined ? 'never' : p.everywhereMs.toFixed(0),
        String(p.modelledBoundMs),
        String(p.documentedBoundMs),
      ];
    }),
  };
}

function operationsTable(systems: readonly SystemSummary[]): Table {
  return {
    columns: [
      'system',
      'KV lists',
      'KV reads',
      'KV writes',
      'DO requests',
      'isolates',
      'isolate-min',
      'KV / request',
      'DO / request',
      'KV / isolate-min',
      'DO / isolate-min',
    ],
    rows: systems.filter(ran).map((s) => {
      const o = s.operations;
      if (o === undefined) return [s.name, 'n/a', '', '', '', '', '', '', '', '', ''];
      return [
        s.name,
        String(o.kvLists),
        String(o.kvReads),
        String(o.kvWrites),
        String(o.storeRequests),
        String(o.isolates),
        o.isolateMinutes.toFixed(1),
        o.kvPerRequest.toFixed(3),
        o.storePerRequest.toFixed(3),
        o.kvPerIsolateMinute.toFixed(1),
        o.storePerIsolateMinute.toFixed(1),
      ];
    }),
  };
}

function targetsTable(report: SimReport): Table {
  return {
    columns: ['target', 'measured', 'met'],
    rows: simTargets(report).map((verdict) => [
      verdict.target,
      verdict.measured,
      verdict.met === undefined ? 'n/a' : verdict.met ? 'yes' : 'NO',
    ]),
  };
}

function ran(system: SystemSummary): boolean {
  return system.requests > 0;
}

function percent(ratio: number | undefined): string {
  return ratio === undefined ? 'n/a' : `${(ratio * 100).toFixed(1)} %`;
}
