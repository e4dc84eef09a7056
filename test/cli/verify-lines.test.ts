// `npm run verify`'s judge (cli/verify-lines.ts), pure: the lines a second location's run gets, compared with the
// first run's report, as Cache-Status members the tiers write them; and the report read back for --previous.

import { describe, expect, it } from 'vitest';
import { judge, type Line, type LineId } from '../../cli/verify-lines.ts';
import type { Observations, PreviousRun, Read } from '../../cli/verify-observations.ts';
import { buildReport, readPrevious } from '../../cli/verify-report.ts';

const SHA = 'a'.repeat(64);

function read(cacheStatus: string, extra: Partial<Read> = {}): Read {
  return { path: '/a.html', status: 200, cacheStatus, bytes: 10, sha256: SHA, ms: 1, ...extra };
}

const MISS_SHIELD_HIT = 'tiercache-shield; hit; ttl=3000, tiercache-edge; fwd=uri-miss; stored';
const MISS_BOTH = 'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=uri-miss; stored';
const EDGE_HIT = 'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; hit; ttl=3599';

function seen(over: Partial<Observations> = {}, first = MISS_BOTH): Observations {
  return {
    place: { base: 'https://cdn.example', edge: 'FRA', shield: 'AMS' },
    health: { status: 200, shield: 'ok', origin: 'ok', colo: 'FRA', shieldColo: 'AMS' },
    object: { path: '/a.html', first: read(first), second: read(EDGE_HIT) },
    sliced: { skipped: 'pass --sliced' },
    purge: { skipped: 'set PURGE_TOKEN' },
    stats: { skipped: 'set STATS_TOKEN' },
    previous: undefined,
    ...over,
  };
}

const previousAt = (edge: string, base = 'https://cdn.example', shield = 'AMS'): PreviousRun => ({
  at: '2026-01-30T10:00:00.000Z',
  base,
  edge,
  shield,
  object: { path: '/a.html', edge: 'fwd=uri-miss; stored', shield: 'fwd=uri-miss; stored' },
});

const lineOf = (lines: Line[], id: LineId): Line => lines.find((line) => line.id === id) as Line;

describe('verify: the shield answering a second location', () => {
  it("passes when this location's edge missed and the shield answered from its cache", () => {
    const line = lineOf(judge(seen({ previous: previousAt('LHR') }, MISS_SHIELD_HIT)), 'second-location');
    expect(line.verdict).toBe('pass');
    expect(line.says).toMatch(/the shield answered this location's miss from its cache$/);
  });

  it('fails, with what to check, when the shield filled again what a run elsewhere read through the same shield', () => {
    const line = lineOf(judge(seen({ previous: previousAt('LHR') })), 'second-location');
    expect(line.verdict).toBe('fail');
    expect(line.advice).toMatch(/the shield's cache did not keep it/);
  });

  it('only informs when the shield ran elsewhere before (each location its own cache), or with no run elsewhere', () => {
    expect(lineOf(judge(seen({ previous: previousAt('LHR', undefined, 'CDG') })), 'second-location').verdict).toBe(
      'info',
    );
    expect(lineOf(judge(seen()), 'second-location')).toMatchObject({ verdict: 'info' });
    expect(lineOf(judge(seen()), 'second-location').advice).toMatch(/--previous/);
  });

  it("says how to show it from elsewhere: another machine for a deployment, the local stack's second location locally", () => {
    expect(lineOf(judge(seen()), 'second-location').advice).toMatch(
      /--previous <this report>\.json` from a machine that reaches another Cloudflare location/,
    );
    const local = {
      base: 'http://127.0.0.1:8787',
      edge: 'local',
      shield: 'local',
      otherLocations: ['http://127.0.0.1:8788'],
    };
    expect(lineOf(judge(seen({ place: local })), 'second-location').advice).toMatch(
      /^run `npm run verify -- --base http:\/\/127\.0\.0\.1:8788 --previous <this report>\.json`: the local stack's second location/,
    );
  });

  it('compares the runs: different colos, or, where one names none (the local stack), different bases', () => {
    expect(lineOf(judge(seen({ previous: previousAt('LHR') })), 'previous').verdict).toBe('pass');
    expect(lineOf(judge(seen({ previous: previousAt('FRA') })), 'previous')).toMatchObject({
      verdict: 'info',
      says: expect.stringMatching(/the same location$/),
    });
    const local = { base: 'http://127.0.0.1:8788', edge: 'local', shield: 'local' };
    const second = seen({ place: local, previous: previousAt('local', 'http://127.0.0.1:8787', 'local') });
    expect(lineOf(judge(second), 'previous').verdict).toBe('pass');
    const same = seen({ place: local, previous: previousAt('local', 'http://127.0.0.1:8788', 'local') });
    expect(lineOf(judge(same), 'previous').verdict).toBe('info');
  });
});

describe('verify: slices at the shield', () => {
  const sliced = (cacheStatus: string): Observations['sliced'] => {
    const whole = read(cacheStatus, { path: '/v.mp4', bytes: 20 });
    const range = { ...read(cacheStatus), start: 0, end: 0, expectedSha256: SHA };
    return { path: '/v.mp4', whole, range, seek: range };
  };

  it('passes when every slice asked of the shield was in its cache, and says how many', () => {
    const lines = judge(
      seen({
        sliced: sliced(
          'tiercache-shield; hit; detail="slices 1/1 of 2", tiercache-edge; fwd=uri-miss; detail="slices 0/2"',
        ),
      }),
    );
    expect(lineOf(lines, 'slices-at-shield')).toMatchObject({ verdict: 'pass' });
    expect(lineOf(lines, 'slices-at-shield').says).toMatch(/\(1 of 1\) was in its cache$/);
    expect(lineOf(lines, 'sliced-read').verdict).toBe('pass');
  });

  it('takes the edge\'s whole copy of a sliced object (detail="whole copy") as sliced, held at the edge', () => {
    const lines = judge(
      seen({ sliced: sliced('tiercache-shield; fwd=uri-miss; stored, tiercache-edge; hit; detail="whole copy"') }),
    );
    expect(lineOf(lines, 'sliced-read')).toMatchObject({ verdict: 'pass', says: expect.stringMatching(/whole copy/) });
    expect(lineOf(lines, 'slices-at-shield').says).toMatch(/the edge held every slice/);
  });

  it('fails the sliced read of an object that was not read in slices, saying what to pass', () => {
    const line = lineOf(judge(seen({ sliced: sliced(EDGE_HIT) })), 'sliced-read');
    expect(line.verdict).toBe('fail');
    expect(line.advice).toMatch(/larger than SLICE_SIZE/);
  });
});

describe('verify: the report read back for --previous', () => {
  it("gives the run's time, base, colos and first reads; refuses what is not a report", () => {
    const observed = seen();
    const report = buildReport('2026-01-30T10:00:00.000Z', observed, [], judge(observed));
    expect(readPrevious(JSON.stringify(report))).toEqual({
      at: '2026-01-30T10:00:00.000Z',
      base: 'https://cdn.example',
      edge: 'FRA',
      shield: 'AMS',
      object: { path: '/a.html', edge: 'fwd=uri-miss; stored', shield: 'fwd=uri-miss; stored' },
    });
    expect(readPrevious('[]')).toEqual({ error: expect.stringMatching(/not a tiercache verify report/) });
    expect(readPrevious('nope')).toEqual({ error: expect.stringMatching(/is not JSON/) });
  });
});
