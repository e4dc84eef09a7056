// Issue 14's proof: a known mix of requests through both tiers (cold and warm, stale,
// revalidated, collapsed, sliced ranges, a purge, an error), and stats.json counting exactly
// that, per tier and outcome, with exact byte totals. What each request did is read from its
// own Cache-Status (RFC 9211), what the origin sent from the tap in front of it: the counts
// must agree with both, and the tiers with each other (every byte the shield sent, the edge
// fetched).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { type Answer, FakeClock, type Fixture, settle, startFixture } from './fixture.ts';

const STATS_TOKEN = 'test-stats-token';
const PURGE_TOKEN = 'test-purge-token';
const MIB = 1024 * 1024;
const SIZES: Record<string, number> = { 'small.txt': 1000, 'reval.txt': 500, 'stale.txt': 700, 'burst.txt': 2000, 'big.bin': 3 * MIB + 100, 'busy.txt': 300 };

let f: Fixture;
const clock = new FakeClock();
/** Every answer the client got, in order. */
const answers: Answer[] = [];

async function get(path: string, init?: RequestInit): Promise<Answer> {
  const answer = await f.get(path, init);
  answers.push(answer);
  return answer;
}

function stats(): Promise<Answer> {
  return f.get('/__tiercache/stats.json', { headers: { authorization: `Bearer ${STATS_TOKEN}` } });
}

/** The edge's verdict on one answer, read from its own Cache-Status member (RFC 9211 §2). */
function edgeOutcome(answer: Answer): string {
  const member = (answer.headers.get('cache-status') ?? '').split(/,\s*(?=tiercache-)/).find((m) => m.startsWith('tiercache-edge')) ?? '';
  if (answer.status >= 500) return 'error';
  if (/;\s*collapsed/.test(member)) return 'collapsed';
  if (/detail=stale-(while-revalidate|if-error)/.test(member)) return 'stale';
  if (/fwd=stale/.test(member)) return /fwd-status=304/.test(member) ? 'revalidated' : 'miss';
  return /;\s*hit/.test(member) ? 'hit' : 'miss';
}

/** Body bytes the origin sent for each GET the tap saw: the range asked for, or the whole object. */
function originBytes(): number {
  let total = 0;
  for (const request of f.tap.requests) {
    if (request.method !== 'GET' || (request.status !== 200 && request.status !== 206)) continue;
    const size = SIZES[request.path.split('?')[0]?.split('/').pop() ?? ''] ?? 0;
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    if (range === null) total += size;
    else total += Math.min(size - 1, range[2] ? Number(range[2]) : size - 1) - Number(range[1]) + 1;
  }
  return total;
}

beforeAll(async () => {
  f = await startFixture(
    { STATS_TOKEN, PURGE_TOKEN, STATS_FLUSH_MS: '0', STALE_WHILE_REVALIDATE: '0', SLICE_SIZE: '1MiB', SLICE_THRESHOLD: '1MiB', WHOLE_COPY_MAX: '0', ORIGIN_TIMEOUT_MS: '3000' },
    { clock },
  );
  for (const [key, size] of Object.entries(SIZES)) {
    const cacheControl = key === 'stale.txt' ? 'max-age=60, stale-while-revalidate=600' : 'max-age=60';
    await f.origin.putObject(key, new Uint8Array(size).fill(key.charCodeAt(0)), { 'cache-control': cacheControl });
  }
  f.tap.clear();
});
afterAll(() => f?.close());

describe('stats.json counts a known mix exactly', () => {
  it('sends the mix', async () => {
    await get('/small.txt'); // cold: a miss at both tiers
    await get('/small.txt'); // warm: an edge hit
    await get('/reval.txt');
    await get('/stale.txt');
    await settle(300);
    clock.advance(70);
    await get('/reval.txt'); // stale, no window: revalidated at both tiers (304s)
    await get('/stale.txt'); // within its stale-while-revalidate window: stale, refreshed behind
    // Three at once while the origin is slow: one fetches, the others wait for it (collapsed).
    f.tap.intercept(async (request) => {
      if (request.path.includes('burst')) await new Promise((resolve) => setTimeout(resolve, 400));
    });
    await Promise.all([get('/burst.txt'), get('/burst.txt'), get('/burst.txt')]);
    f.tap.intercept(undefined);
    await get('/big.bin', { headers: { range: 'bytes=0-99' } }); // slice 0
    await get('/big.bin', { headers: { range: 'bytes=1500000-2200000' } }); // slices 1 and 2
    const purged = await f.get('/__tiercache/purge', { method: 'POST', headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ urls: ['/small.txt'] }) });
    expect(purged.status).toBe(200);
    await get('/small.txt'); // purged: a miss at both tiers again
    f.tap.faults((request) => (request.path.includes('busy') ? { kind: 'busy', status: 503, retryAfter: '0' } : undefined));
    await get('/busy.txt'); // the origin stays busy: an error at both tiers
    f.tap.faults(undefined);
    await settle(500);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 206, 206, 200, 503]);
  });

  it('counts every edge request by its outcome, with the bytes it sent', async () => {
    const view = await settledStats();
    const edge = view.tiers.edge;
    const expected = new Map<string, { requests: number; bytesSent: number }>();
    for (const answer of answers) {
      const outcome = edgeOutcome(answer);
      const seen = expected.get(outcome) ?? { requests: 0, bytesSent: 0 };
      expected.set(outcome, { requests: seen.requests + 1, bytesSent: seen.bytesSent + answer.body.byteLength });
    }
    for (const [outcome, totals] of Object.entries(edge.outcomes)) {
      expect({ outcome, requests: totals.requests, bytesSent: totals.bytesSent }).toEqual({ outcome, ...(expected.get(outcome) ?? { requests: 0, bytesSent: 0 }) });
    }
    // What the mix was made of, whatever the headers say.
    expect([edge.outcomes.hit.requests, edge.outcomes.revalidated.requests, edge.outcomes.stale.requests, edge.outcomes.error.requests]).toEqual([1, 1, 1, 1]);
    expect(edge.outcomes.collapsed.requests).toBeGreaterThanOrEqual(1);
    expect(edge.totals.requests).toBe(answers.length);
    expect(edge.totals.bytesSent).toBe(answers.reduce((sum, answer) => sum + answer.body.byteLength, 0));
    // big.bin's ranges looked up slice 0, then slices 1 and 2: none was there yet.
    expect([edge.totals.slicesHit, edge.totals.slicesMissed]).toEqual([0, 3]);
  });

  it('counts the shield: every byte it sent fetched by the edge, every origin byte it fetched', async () => {
    const view = await settledStats();
    const { edge, shield } = view.tiers;
    expect(shield.totals.bytesSent).toBe(edge.totals.bytesFromNextHop);
    expect(shield.totals.bytesFromOrigin).toBe(originBytes());
    expect(shield.totals.bytesFromNextHop).toBe(shield.totals.bytesFromOrigin);
    expect(view.egress.originBytes).toBe(originBytes());
    expect(view.egress.servedBytes).toBe(edge.totals.bytesSent);
    expect(shield.outcomes.revalidated.requests).toBeGreaterThanOrEqual(1);
    expect(shield.outcomes.error.requests).toBe(1);
    expect(view.recentPurges.map((purge) => purge.value)).toContain('/small.txt');
    // The edge's view of the same: what it fetched that the shield had to fetch from the origin.
    expect(edge.totals.bytesFromOrigin).toBe(shield.totals.bytesFromOrigin);
    // Twelve requests reached the shield: eight misses (three objects, small.txt again after its
    // purge, burst.txt once for all three, big.bin's three slices: the one the range read ahead
    // was a warm, stored at the shield and sent nothing), the one hit (that slice, fetched by the
    // edge once stored there), the two revalidations (reval.txt, and stale.txt's refresh behind
    // the stale answer) and the busy origin.
    expect(Object.fromEntries(Object.entries(shield.outcomes).map(([outcome, totals]) => [outcome, totals.requests]))).toEqual({ hit: 1, miss: 8, stale: 0, revalidated: 2, collapsed: 0, bypass: 0, error: 1 });
    expect(shield.outcomes.revalidated.bytesSent).toBe(0);
    // big.bin's three slices missed once each (the warm's included), and the warmed one hit once.
    expect([shield.totals.slicesHit, shield.totals.slicesMissed]).toEqual([1, 3]);
  });
});

/** stats.json once the tiers' last flushes have landed (they run after the responses). */
async function settledStats(): Promise<StatsJson> {
  let last: StatsJson | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = await stats();
    expect(answer.status).toBe(200);
    const view = JSON.parse(answer.text) as StatsJson;
    if (last !== undefined && JSON.stringify(last.tiers) === JSON.stringify(view.tiers) && view.tiers.edge.totals.requests === answers.length) return view;
    last = view;
    await settle(200);
  }
  throw new Error(`stats did not settle: ${JSON.stringify(last?.tiers.edge.totals)}`);
}
