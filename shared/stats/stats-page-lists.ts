// The stats page's ranked lists: the keys the edge misses most, the busiest hosts, why requests
// went around the cache and why they failed, and the recent purges. Each is a table whose
// cells are escaped by htmlTable: hosts, keys, reasons and purge values are what clients sent.

import { formatBytes, formatCount, formatTime } from './format.ts';
import { htmlTable } from './html-table.ts';
import type { StatsJson } from './stats-json.ts';

export function statsLists(stats: StatsJson): string {
  const window = `in the last ${stats.windowMinutes} minutes`;
  return [
    htmlTable({
      caption: 'Keys the edge misses most',
      columns: [
        { title: 'key', kind: 'key' },
        { title: 'misses', kind: 'number' },
      ],
      rows: stats.topMisses.map((miss) => [miss.key, formatCount(miss.misses)]),
      empty: `No misses ${window}.`,
    }),
    htmlTable({
      caption: 'Hosts at the edge',
      columns: [
        { title: 'host', kind: 'key' },
        { title: 'requests', kind: 'number' },
        { title: 'bytes sent', kind: 'number' },
      ],
      rows: stats.hosts.map((host) => [host.host, formatCount(host.requests), formatBytes(host.bytesSent)]),
      empty: `No requests ${window}.`,
    }),
    htmlTable({
      caption: 'Why requests bypassed the cache',
      columns: [{ title: 'tier' }, { title: 'reason', kind: 'key' }, { title: 'requests', kind: 'number' }],
      rows: stats.bypassReasons.map((row) => [row.tier, row.reason, formatCount(row.requests)]),
      empty: `No bypasses ${window}.`,
    }),
    htmlTable({
      caption: 'Errors',
      columns: [{ title: 'tier' }, { title: 'cause', kind: 'key' }, { title: 'requests', kind: 'number' }],
      rows: stats.errors.map((row) => [row.tier, row.reason, formatCount(row.requests)]),
      empty: `No errors ${window}.`,
    }),
    htmlTable({
      caption: 'Recent purges',
      columns: [{ title: 'when (UTC)', kind: 'time' }, { title: 'kind' }, { title: 'value', kind: 'key' }],
      rows: stats.recentPurges.map((purge) => [
        formatTime(purge.at),
        purge.kind,
        purge.kind === 'everything' ? '(everything)' : purge.value,
      ]),
      empty: 'No purges recorded.',
    }),
  ].join('');
}
