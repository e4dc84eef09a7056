// bench:egress's report (bench/report/egress-report.ts) on made-up rows: the target per row, the full bench's evidence
// read back from an egress.json, and its target row. No processes.
import { describe, expect, it } from 'vitest';
import { coverage } from '../../../bench/report/byte-intervals.ts';
import {
  type EgressRow,
  egressEvidence,
  egressSummary,
  egressTable,
  egressTarget,
  objectSize,
  rowMeets,
} from '../../../bench/report/egress-report.ts';

const MIB = 2 ** 20;

function row(scenario: string, fromShield: number, served: { start: number; end: number }[], exact = true): EgressRow {
  return {
    scenario,
    key: `egress-bench/x/${scenario}.bin`,
    objectBytes: 24 * MIB,
    reads: [{ label: 'GET', status: 200, bytes: 24 * MIB, cut: false, exact, ms: 500 }],
    exact,
    edge: { requests: 1, bytesFromShield: fromShield },
    shield: { requests: 3, bytesFromOrigin: fromShield },
    origin: { sent: coverage(served), received: coverage(served), responses: served.length, cut: 0, detail: [] },
    connectionLostLines: 0,
    unsettled: false,
  };
}

const once = row('burst', 8 * MIB, [{ start: 8 * MIB, end: 16 * MIB }]);
const twice = row('player', 32 * MIB, [
  { start: 0, end: 8 * MIB },
  { start: 0, end: 8 * MIB },
  { start: 8 * MIB, end: 24 * MIB },
]);

describe('rowMeets', () => {
  it('holds within the object at both tiers with nothing sent twice and every byte exact', () => {
    expect(rowMeets(once)).toBe(true);
    expect(rowMeets(twice)).toBe(false);
    expect(rowMeets(row('wrong', 8 * MIB, [{ start: 0, end: 8 * MIB }], false))).toBe(false);
    // At most the object, but a part of it twice: still not met.
    expect(
      rowMeets(
        row('overlap', 16 * MIB, [
          { start: 0, end: 9 * MIB },
          { start: 8 * MIB, end: 16 * MIB },
        ]),
      ),
    ).toBe(false);
  });
});

describe('egressTable', () => {
  it('says each tier against the object, what was sent twice and the verdict', () => {
    const [first] = egressTable([twice]).rows;
    expect(first).toEqual([
      'player',
      '24 MiB',
      '1/1',
      '33.55 MB (1.33×)',
      '33.55 MB (1.33×)',
      '8.39 MB',
      '33.55 MB (1.33×)',
      '8.39 MB',
      '3 (0)',
      '33.55 MB (1.33×)',
      '0',
      'NOT MET',
    ]);
  });
});

describe('objectSize', () => {
  it('names whole MiB as such, else MB', () => {
    expect(objectSize(24 * MIB)).toBe('24 MiB');
    expect(objectSize(15_000_000)).toBe('15 MB');
    expect(objectSize(9_005_671)).toBe('9.01 MB');
  });
});

describe('the full bench: egressEvidence and egressTarget', () => {
  const json = { benchmark: 'egress', startedAt: '2026-12-02T00:00:00Z', rows: [once, twice] };

  it('reads an egress.json back and judges on the worst ratio and the bytes sent twice', () => {
    const evidence = egressEvidence(JSON.parse(JSON.stringify(json)), 'this run');
    expect(evidence?.rows.map((r) => [r.scenario, r.met])).toEqual([
      ['burst', true],
      ['player', false],
    ]);
    const target = egressTarget(evidence);
    expect(target).toMatchObject({ id: 'egress', verdict: 'not met', bound: 1, compare: '≤' });
    expect(target.ratio).toBeCloseTo(4 / 3);
    expect(target.measured).toContain('8.39 MB from the origin twice; 1 of 2 scenarios over');
    expect(egressTarget(egressEvidence({ ...json, rows: [once] }, 'x'))?.verdict).toBe('met');
    expect(egressSummary(evidence).join('\n')).toContain('| player   | 24 MiB |');
  });

  it('refuses what is not an egress.json, and says the target was not measured', () => {
    expect(egressEvidence({ benchmark: 'memory' }, 'x')).toBeUndefined();
    expect(egressEvidence({ benchmark: 'egress', rows: [{ scenario: 'a' }] }, 'x')).toBeUndefined();
    expect(egressTarget(undefined).verdict).toBe('n/a (not measured)');
    expect(egressSummary(undefined)).toEqual(['No bench:egress result (`npm run bench:egress`).']);
  });
});
