// The ranked lists of the stats, as tables: hosts, the keys that miss most, why requests
// bypassed the cache, why they failed, and the latest purges. In the server's order (most
// first, latest first: shared/stats/ranking.ts), which the CLI does not second-guess.

import { formatBytes, formatCount, formatTime } from '../shared/stats/format.ts';
import type { StatsJson } from '../shared/stats/stats-json.ts';
import { textTable } from './text-table.ts';

export function statsLists(stats: StatsJson): string[] {
  return [
    textTable(
      'Hosts (at the edge)',
      [{ title: 'host' }, { title: 'requests', align: 'right' }, { title: 'bytes sent', align: 'right' }],
      stats.hosts.map(({ host, requests, bytesSent }) => [host, formatCount(requests), formatBytes(bytesSent)]),
    ),
    textTable(
      'Top misses (at the edge)',
      [{ title: 'key' }, { title: 'misses', align: 'right' }],
      stats.topMisses.map(({ key, misses }) => [key, formatCount(misses)]),
    ),
    reasonsTable('Bypass reasons', stats.bypassReasons),
    reasonsTable('Errors', stats.errors),
    textTable(
      'Recent purges',
      [{ title: 'at (UTC)' }, { title: 'kind' }, { title: 'value' }],
      stats.recentPurges.map(({ at, kind, value }) => [formatTime(at), kind, value === '' ? '—' : value]),
    ),
  ];
}

function reasonsTable(title: string, reasons: StatsJson['errors']): string {
  return textTable(
    title,
    [{ title: 'tier' }, { title: 'reason' }, { title: 'requests', align: 'right' }],
    reasons.map(({ tier, reason, requests }) => [tier, reason, formatCount(requests)]),
  );
}
