// The suite's tables (bench/report/suite-tables.ts) from made-up Workload V cells: the local
// front's own table, the edge's own socket beside the same edge through the front. No processes.
import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/load/load-result.ts';
import { frontTable } from '../../../bench/report/suite-tables.ts';
import { FRONT_NAME, type TargetName } from '../../../bench/setup/targets.ts';
import type { VRun } from '../../../bench/workloads/concurrency-sweep.ts';

function v(size: string, concurrency: number, target: TargetName, reqPerSec: number): VRun {
  const load: LoadResult = {
    tool: 'wrk 4.x',
    requests: reqPerSec,
    errors: 0,
    non2xx: 0,
    elapsedSec: 1,
    reqPerSec,
    bytes: 0,
    mibPerSec: 0,
    latency: { meanMs: 1, p50Ms: 1, p99Ms: 1, maxMs: 1 },
  };
  return { size, concurrency, target, load };
}

describe('frontTable', () => {
  it('puts each cell the edge ran both ways on a row: own socket, through the front, what the front takes, both against naive-map', () => {
    const table = frontTable([
      v('20 KB', 10, 'tiercache', 12_000),
      v('20 KB', 100, 'tiercache', 10_000),
      v('20 KB', 100, FRONT_NAME, 6000),
      v('20 KB', 100, 'naive-map', 8000),
    ]);
    // c = 10 ran on the edge's own socket only: no row.
    expect(table.rows).toEqual([['20 KB', '100', '10000', '6000', '0.60×', '40 %', '1.25×', '0.75×']]);
    expect(table.columns).toHaveLength(8);
  });
});
