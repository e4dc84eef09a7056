// The stats, proved end to end: a known mix of requests through both tiers (cold and warm, stale,
// revalidated, collapsed, sliced ranges, a cold sliced download read ahead, a purge, an error,
// 404s answered with the site's 404 page, an only-if-cached miss), and stats.json counting
// exactly that, per tier and outcome, with exact byte totals; then a site answering chunked
// (no Content-Length). What each request did is read from its own Cache-Status (RFC 9211),
// what the origin sent from the tap in front of it: the counts must agree with both, and the
// tiers with each other (every byte the shield sent, the edge fetched).

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { FIRST_AHEAD } from '../../shared/tier/slice-reader/demand.ts';
import type { TierName } from '../../shared/tiers/tiers.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { patternBytes } from './bytes.ts';
import { type Answer, FakeClock, type Fixture, request, SHIELD_TOKEN, settle, startFixture } from './fixture.ts';

const STATS_TOKEN = 'test-stats-token';
const PURGE_TOKEN = 'test-purge-token';
const MIB = 1024 * 1024;
const NOT_FOUND_PAGE = '<!doctype html><h1>nothing here</h1>';
const SIZES: Record<string, number> = {
  'small.txt': 1000,
  'reval.txt': 500,
  'stale.txt': 700,
  'burst.txt': 2000,
  'big.bin': 3 * MIB + 100,
  'busy.txt': 300,
  'cold.bin': 4 * MIB + 100,
  'held.bin': 4 * MIB + 100,
  '404.html': NOT_FOUND_PAGE.length,
};

let f: Fixture;
const clock = new FakeClock();
/** Every answer the client got, in order. */
const answers: Answer[] = [];
/**
 * The JSON lines the workers logged while the mix ran (workerd's stdout, which Miniflare hands to console.log line by
 * line).
 */
const logged: string[] = [];

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
  const member =
    (answer.headers.get('cache-status') ?? '')
      .split(/,\s*(?=tiercache-)/)
      .find((m) => m.startsWith('tiercache-edge')) ?? '';
  // RFC 9111 §5.2.1.7: nothing stored and the client asked for nothing else: its choice, not our error.
  if (answer.status === 504 && /detail="?only-if-cached/.test(member)) return 'bypass';
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
    {
      STATS_TOKEN,
      PURGE_TOKEN,
      STATS_FLUSH_MS: '0',
      STALE_WHILE_REVALIDATE: '0',
      SLICE_SIZE: '1MiB',
      SLICE_THRESHOLD: '1MiB',
      WHOLE_COPY_MAX: '0',
      ORIGIN_TIMEOUT_MS: '3000',
      NOT_FOUND_DOCUMENT: '404.html',
    },
    { clock },
  );
  for (const [key, size] of Object.entries(SIZES)) {
    const cacheControl = key === 'stale.txt' ? 'max-age=60, stale-while-revalidate=600' : 'max-age=60';
    const body = key === '404.html' ? NOT_FOUND_PAGE : new Uint8Array(size).fill(key.charCodeAt(0));
    await f.origin.putObject(key, body, {
      'cache-control': cacheControl,
      ...(key === '404.html' ? { 'content-type': 'application/octet-stream' } : {}),
    });
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
    const purged = await f.get('/__tiercache/purge', {
      method: 'POST',
      headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['/small.txt'] }),
    });
    expect(purged.status).toBe(200);
    await get('/small.txt'); // purged: a miss at both tiers again
    f.tap.faults((request) =>
      request.path.includes('busy') ? { kind: 'busy', status: 503, retryAfter: '0' } : undefined,
    );
    // What the workers log from here on: the error that follows, and what comes after it.
    const log = vi.spyOn(console, 'log');
    await get('/busy.txt'); // the origin stays busy: an error at both tiers
    f.tap.faults(undefined);
    // A cold download of a sliced object: slice 0 with discovery, the rest read ahead (each
    // stored at the shield by a warm, then copied into the edge's cache).
    const cold = await get('/cold.bin');
    expect(cold.body.byteLength).toBe(SIZES['cold.bin']);
    // Misses answered with the 404 page: its first read a miss, its second a hit of the edge's
    // cache (which copies it into memory), its third a memory hit. Each is still a 404 miss.
    for (const path of ['/gone-1.txt', '/gone-2.txt', '/gone-3.txt']) {
      const gone = await get(path);
      expect([gone.status, gone.text]).toEqual([404, NOT_FOUND_PAGE]);
      await settle(200);
    }
    // A 404 of the tiers' own namespace, with the page (from memory): no request for an object, never counted.
    const internal = await f.get('/__tiercache/nothing-here');
    expect([internal.status, internal.text]).toEqual([404, NOT_FOUND_PAGE]);
    // RFC 9111 §5.2.1.7: nothing stored, and the client asked for nothing else: a 504 by its choice.
    await get('/never-stored.txt', { headers: { 'cache-control': 'only-if-cached' } });
    await settle(500);
    logged.push(...log.mock.calls.map((call) => String(call[0])));
    log.mockRestore();
    expect(answers.map((answer) => answer.status)).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 206, 206, 200, 503, 200, 404, 404, 404, 504,
    ]);
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
      expect({ outcome, requests: totals.requests, bytesSent: totals.bytesSent }).toEqual({
        outcome,
        ...(expected.get(outcome) ?? { requests: 0, bytesSent: 0 }),
      });
    }
    // What the mix was made of, whatever the headers say: the one hit is small.txt warm (the
    // 404 page read from memory is part of a 404 miss), the one bypass the only-if-cached miss.
    expect([
      edge.outcomes.hit.requests,
      edge.outcomes.revalidated.requests,
      edge.outcomes.stale.requests,
      edge.outcomes.bypass.requests,
      edge.outcomes.error.requests,
    ]).toEqual([1, 1, 1, 1, 1]);
    expect(edge.outcomes.collapsed.requests).toBeGreaterThanOrEqual(1);
    expect(edge.totals.requests).toBe(answers.length);
    expect(edge.totals.bytesSent).toBe(answers.reduce((sum, answer) => sum + answer.body.byteLength, 0));
    // big.bin's ranges looked up slice 0, then slices 1 and 2; cold.bin its first and the FIRST_AHEAD its reader had
    // earned before the first byte (window.ts): none was there yet.
    expect([edge.totals.slicesHit, edge.totals.slicesMissed]).toEqual([0, 3 + 1 + FIRST_AHEAD]);
  });

  it('counts a 404 answered with the 404 page as the 404 miss it was, never as a hit of the page', async () => {
    const view = await settledStats();
    const misses = view.topMisses.map((miss) => miss.key);
    for (const path of ['/gone-1.txt', '/gone-2.txt', '/gone-3.txt']) expect(misses).toContain(path);
    // The page was read for them, not asked for: it is no request of its own, and the tiers' own 404 none at all.
    expect(misses.filter((key) => key === '/404.html' || key.includes('tiercache'))).toEqual([]);
  });

  it("counts an only-if-cached miss as the client's bypass, not an error of ours, and logs no error for it (RFC 9111 §5.2.1.7)", async () => {
    const view = await settledStats();
    expect(view.bypassReasons).toContainEqual({ tier: 'edge', reason: 'only-if-cached', requests: 1 });
    expect(view.errors.filter((error) => error.reason === 'only-if-cached')).toEqual([]);
    const errors = logged.filter((line) => line.includes('"outcome":"error"'));
    // The busy origin's error is logged at both tiers (what the log is for); nothing else is.
    expect(errors.filter((line) => line.includes('/busy.txt'))).toHaveLength(2);
    expect(errors.filter((line) => !line.includes('/busy.txt'))).toEqual([]);
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
    // Twenty requests reached the shield, one per object or slice the edge asked for: seventeen
    // misses (three objects, small.txt again after its purge, burst.txt once for all three,
    // big.bin's three slices, cold.bin's five, each slice read ahead counted once, by its warm,
    // not again by the edge's copy of it; the three 404s and the 404 page once), the two
    // revalidations (reval.txt, and stale.txt's refresh behind the stale answer) and the busy
    // origin. None was a hit: nothing was asked for twice.
    expect(
      Object.fromEntries(Object.entries(shield.outcomes).map(([outcome, totals]) => [outcome, totals.requests])),
    ).toEqual({ hit: 0, miss: 17, stale: 0, revalidated: 2, collapsed: 0, bypass: 0, error: 1 });
    // The same from the origin's side: one GET per miss, a 304 per revalidation.
    const gets = (statuses: number[]): number =>
      f.tap.requests.filter((request) => request.method === 'GET' && statuses.includes(request.status ?? 0)).length;
    expect([shield.outcomes.miss.requests, shield.outcomes.revalidated.requests]).toEqual([
      gets([200, 206, 404]),
      gets([304]),
    ]);
    expect(shield.outcomes.revalidated.bytesSent).toBe(0);
    // Every byte the shield sent was a miss's, fetched from the origin for it: none a hit's.
    expect([shield.outcomes.hit.bytesSent, shield.outcomes.miss.bytesFromOrigin]).toEqual([0, originBytes()]);
    // big.bin's three slices and cold.bin's five, each missed once.
    expect([shield.totals.slicesHit, shield.totals.slicesMissed]).toEqual([0, 8]);
    // The edge's view of the same: what it fetched that the shield had to fetch from the origin. Last, and with
    // each tier's outcomes and the origin's GETs in its message, so a difference says which request it was.
    expect(
      edge.totals.bytesFromOrigin,
      JSON.stringify({
        edge: edge.outcomes,
        shield: shield.outcomes,
        origin: f.tap.requests.map((request) => `${request.method} ${request.path} ${request.status}`),
      }),
    ).toBe(shield.totals.bytesFromOrigin);
  });

  it("counts the slices read ahead that the shield held as the hits they were, each once, every byte it sent a hit's", async () => {
    const before = await settledStats();
    // The shield alone reads held.bin first (as another edge location would have): stored there, not at this edge.
    const direct = await request(new URL('/held.bin', f.stack.shieldUrl), {
      headers: { 'x-tiercache-credential': SHIELD_TOKEN },
    });
    expect(direct.body.byteLength).toBe(SIZES['held.bin']);
    await settle(500);
    f.tap.clear();
    const held = await get('/held.bin');
    expect(held.body.byteLength).toBe(SIZES['held.bin']);
    await settle(300);
    const after = await settledStats();
    const delta = (
      tier: TierName,
      outcome: 'hit' | 'miss',
      field: 'requests' | 'bytesSent' | 'bytesFromNextHop' | 'bytesFromOrigin',
    ): number => after.tiers[tier].outcomes[outcome][field] - before.tiers[tier].outcomes[outcome][field];
    expect(f.tap.requests).toEqual([]);
    // The edge's one miss, every byte of it from the shield's cache.
    expect([
      delta('edge', 'miss', 'requests'),
      delta('edge', 'miss', 'bytesFromNextHop'),
      delta('edge', 'miss', 'bytesFromOrigin'),
    ]).toEqual([1, SIZES['held.bin'], 0]);
    // At the shield: its own read (a miss, all from the origin), then one hit per slice the edge asked for (five).
    expect([delta('shield', 'miss', 'requests'), delta('shield', 'miss', 'bytesFromOrigin')]).toEqual([
      1,
      SIZES['held.bin'],
    ]);
    expect([
      delta('shield', 'hit', 'requests'),
      delta('shield', 'hit', 'bytesSent'),
      delta('shield', 'hit', 'bytesFromOrigin'),
    ]).toEqual([5, SIZES['held.bin'], 0]);
  });
});

describe('stats.json counts what a site answering without Content-Length (chunked) sent, by the bytes that passed', () => {
  let site: AnyOrigin;
  let stack: Stack;
  /** Every answer the client got, in order. */
  const got: Answer[] = [];
  const CHUNKED = { 'transfer-encoding': 'chunked', 'content-type': 'application/octet-stream' };
  const BODIES: Record<string, { status: number; body: Uint8Array; cacheControl: string }> = {
    '/feed.bin': { status: 200, body: patternBytes(1, 300_000), cacheControl: 'max-age=60' },
    '/live.bin': { status: 200, body: patternBytes(2, 7000), cacheControl: 'no-store' },
    '/nothing': { status: 404, body: patternBytes(3, 120), cacheControl: 'no-store' },
    '/404.html': { status: 200, body: new TextEncoder().encode(NOT_FOUND_PAGE), cacheControl: 'max-age=60' },
    '/form': { status: 201, body: patternBytes(4, 900), cacheControl: 'no-store' },
  };
  const send = async (path: string, init?: RequestInit): Promise<Answer> => {
    const answer = await request(new URL(path, stack.url), init);
    got.push(answer);
    return answer;
  };
  const siteStats = (): Promise<Answer> =>
    request(new URL('/__tiercache/stats.json', stack.url), { headers: { authorization: `Bearer ${STATS_TOKEN}` } });

  beforeAll(async () => {
    site = await startAnyOrigin();
    for (const [path, { status, body, cacheControl }] of Object.entries(BODIES))
      site.answer(path, { status, headers: { ...CHUNKED, 'cache-control': cacheControl }, body });
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 'http',
        ORIGIN_URL: site.url,
        SHIELD_TOKEN: 'stats-chunked',
        STATS_TOKEN,
        STATS_FLUSH_MS: '0',
        NOT_FOUND_DOCUMENT: '404.html',
        SLICE_SIZE: '1MiB',
      },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await site?.close();
  });

  it('sends the mix: chunked misses (stored, and not), a hit, a 404 with a chunked page, a method passed through', async () => {
    expect((await send('/feed.bin')).body).toEqual(BODIES['/feed.bin']?.body); // a miss at both tiers, stored as it passes
    await settle(300);
    expect((await send('/feed.bin')).body).toEqual(BODIES['/feed.bin']?.body); // the edge's hit
    for (let i = 0; i < 2; i++) expect((await send('/live.bin')).body).toEqual(BODIES['/live.bin']?.body); // never stored: misses
    const gone = await send('/nothing'); // the site's 404, answered with the 404 page (a miss itself)
    expect([gone.status, gone.text]).toEqual([404, NOT_FOUND_PAGE]);
    const posted = await send('/form', { method: 'POST', body: 'x=1' }); // passed through to the site
    expect([posted.status, posted.body]).toEqual([201, BODIES['/form']?.body]);
    // The site declared no length for any of them: the bytes are only known by counting them,
    // as the shield reads them and wherever a tier passes them on without a length (the POST's
    // answer, at both tiers).
    expect(posted.headers.get('content-length')).toBeNull();
  });

  it("counts the bytes each tier sent and fetched as they passed: the client's, the origin's, and every byte the shield sent fetched by the edge", async () => {
    const view = await settledStats(siteStats, got.length);
    const { edge, shield } = view.tiers;
    expect(edge.totals.requests).toBe(got.length);
    expect(edge.totals.bytesSent).toBe(got.reduce((sum, answer) => sum + answer.body.byteLength, 0));
    // What the site sent: every body it answered (the 404's and the page's included).
    const sentBySite = site.received.reduce(
      (sum, received) => sum + (received.method === 'HEAD' ? 0 : (BODIES[received.path]?.body.byteLength ?? 0)),
      0,
    );
    // feed.bin once (then a hit), live.bin twice, the 404 and its page once each, the POST's answer.
    expect(sentBySite).toBe(300_000 + 2 * 7000 + 120 + NOT_FOUND_PAGE.length + 900);
    expect(shield.totals.bytesFromOrigin).toBe(sentBySite);
    expect(shield.totals.bytesFromNextHop).toBe(sentBySite);
    expect(view.egress.originBytes).toBe(sentBySite);
    expect(shield.totals.bytesSent).toBe(edge.totals.bytesFromNextHop);
    expect(view.egress.servedBytes).toBe(edge.totals.bytesSent);
    // The one hit sent its bytes, fetched none.
    expect([edge.outcomes.hit.requests, edge.outcomes.hit.bytesSent, edge.outcomes.hit.bytesFromNextHop]).toEqual([
      1, 300_000, 0,
    ]);
  });
});

/** stats.json (as `read` gets it) once the tiers' last flushes have landed (they run after the responses). */
async function settledStats(read: () => Promise<Answer> = stats, requests = answers.length): Promise<StatsJson> {
  let last: StatsJson | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = await read();
    expect(answer.status).toBe(200);
    const view = JSON.parse(answer.text) as StatsJson;
    if (
      last !== undefined &&
      JSON.stringify(last.tiers) === JSON.stringify(view.tiers) &&
      view.tiers.edge.totals.requests >= requests
    )
      return view;
    last = view;
    await settle(200);
  }
  throw new Error(`stats did not settle: ${JSON.stringify(last?.tiers.edge.totals)}`);
}
