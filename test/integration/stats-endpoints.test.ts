// The tiers' own read endpoints through the real workers (docs/operating.md):
// GET /__tiercache/stats and stats.json behind STATS_TOKEN (403 while it is unset; 401 with
// the challenge for missing, wrong or malformed credentials, never a 500; Bearer or a Basic
// password), never cached, HTML under its CSP; /__tiercache/health without a token; other
// methods 405 with Allow; odd spellings routed on the canonical path; hostile input escaped
// on the page end to end; and none of these requests counted as requests for objects.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../shared/config/version.ts';
import { escapeHtml } from '../../shared/stats/html.ts';
import { OUTCOMES } from '../../shared/stats/record.ts';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { STATS_SHARDS } from '../../shared/stats/store-shards.ts';
import { TOTAL_FIELDS } from '../../shared/stats/totals.ts';
import { TIER_NAMES } from '../../shared/tiers/tiers.ts';
import { type Answer, type Fixture, type RawAnswer, rawRequest, settle, startFixture } from './fixture.ts';

const STATS_TOKEN = 'stats-endpoints-token';
const PURGE_TOKEN = 'stats-endpoints-purge';
const CHALLENGE = /^Basic realm="[^"]+", Bearer realm="[^"]+"$/;
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** A request exactly as given (node:http: any header, any target, any method), to the edge's printed port. */
function raw(f: Fixture, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return rawRequest(new URL(`${f.stack.url}${path}`), headers, method);
}

function expectNeverStored(answer: Answer, label = ''): void {
  expect(answer.headers.get('cache-control'), label).toBe('no-store');
  expect(answer.headers.get('age'), label).toBeNull();
  expect(answer.headers.get('cache-status') ?? '', label).not.toMatch(/;\s*hit/);
}

function expectChallenge(answer: Answer, label: string): void {
  expect(answer.status, label).toBe(401);
  expect(answer.headers.get('www-authenticate'), label).toMatch(CHALLENGE);
  expect(answer.headers.get('content-type'), label).toMatch(/^text\/plain/);
  expectNeverStored(answer, label);
}

describe('stats without STATS_TOKEN', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ STATS_FLUSH_MS: '0' });
  });
  afterAll(() => f?.close());

  it('is 403 with a text/plain reason naming the secret, whatever is presented, and never cached', async () => {
    for (const path of ['/__tiercache/stats', '/__tiercache/stats.json']) {
      for (const headers of [{}, bearer(STATS_TOKEN), basic('admin', STATS_TOKEN), bearer('')]) {
        const label = `${path} ${JSON.stringify(headers)}`;
        const answer = await f.get(path, { headers });
        expect(answer.status, label).toBe(403);
        expect(answer.headers.get('content-type'), label).toMatch(/^text\/plain/);
        expect(answer.text, label).toMatch(/^403 .*STATS_TOKEN/);
        expect(answer.headers.get('www-authenticate'), label).toBeNull();
        expectNeverStored(answer, label);
      }
    }
  });

  it('stays 403 when asked again (nothing was stored), and HEAD is 403 without a body', async () => {
    const again = await f.get('/__tiercache/stats.json', { headers: bearer(STATS_TOKEN) });
    expect(again.status).toBe(403);
    expectNeverStored(again);
    const head = await raw(f, '/__tiercache/stats.json', bearer(STATS_TOKEN), 'HEAD');
    expect([head.status, head.body.byteLength]).toEqual([403, 0]);
    expect(head.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('health needs no token: it answers on a deployment without one', async () => {
    const health = await f.get('/__tiercache/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toMatchObject({ status: 'ok', edge: 'ok', shield: 'ok', version: VERSION });
  });
});

describe('stats with STATS_TOKEN, through the front', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ STATS_TOKEN, PURGE_TOKEN, STATS_FLUSH_MS: '0' }, { front: true });
    for (const key of ['a.txt', 'marker.txt'])
      await f.origin.putObject(key, `object ${key}`, { 'cache-control': 'max-age=600' });
  });
  afterAll(() => f?.close());

  async function statsJson(): Promise<StatsJson> {
    const answer = await f.get('/__tiercache/stats.json', { headers: bearer(STATS_TOKEN) });
    expect(answer.status).toBe(200);
    return JSON.parse(answer.text) as StatsJson;
  }

  /** stats.json once `done` holds and two reads in a row agree (the tiers flush after their responses). */
  async function settledStats(done: (view: StatsJson) => boolean): Promise<StatsJson> {
    let last: StatsJson | undefined;
    for (let attempt = 0; attempt < 25; attempt++) {
      const view = await statsJson();
      if (last !== undefined && done(view) && JSON.stringify(last.tiers) === JSON.stringify(view.tiers)) return view;
      last = view;
      await settle(200);
    }
    throw new Error(`stats did not settle: ${JSON.stringify(last?.tiers.edge.totals)}`);
  }

  it('without credentials: 401 with the challenge for both schemes, on the page and the JSON, GET and HEAD', async () => {
    for (const path of ['/__tiercache/stats', '/__tiercache/stats.json']) {
      const answer = await f.get(path);
      expectChallenge(answer, path);
      expect(answer.text).toMatch(/^401 .*Bearer/);
      const head = await raw(f, path, {}, 'HEAD');
      expectChallenge(head, `HEAD ${path}`);
      expect(head.body.byteLength).toBe(0);
    }
  });

  it('a wrong Bearer token or a wrong Basic password: 401', async () => {
    const wrong: [string, Record<string, string>][] = [
      ['wrong bearer', bearer('not-the-token')],
      ['bearer with the token cut short', bearer(STATS_TOKEN.slice(0, -1))],
      ['bearer with the token and more', bearer(`${STATS_TOKEN}x`)],
      ['wrong basic password', basic('admin', 'not-the-token')],
      ['the token as the basic user, not the password', basic(STATS_TOKEN, '')],
      ['an empty basic password', basic('admin', '')],
    ];
    for (const [label, headers] of wrong) {
      for (const path of ['/__tiercache/stats', '/__tiercache/stats.json'])
        expectChallenge(await f.get(path, { headers }), `${label} ${path}`);
    }
  });

  it('a malformed Authorization is a 401, never a 500', async () => {
    const malformed: [string, string][] = [
      ['Basic !!!', 'Basic !!!'],
      ['Basic not base64 at all', 'Basic %%%%'],
      ['Basic without a colon', `Basic ${Buffer.from(STATS_TOKEN).toString('base64')}`],
      ['Basic alone', 'Basic'],
      ['Bearer alone', 'Bearer'],
      ['Bearer and a space', 'Bearer '],
      ['Bearer with two words', `Bearer ${STATS_TOKEN} ${STATS_TOKEN}`],
      ['an unknown scheme', `Token ${STATS_TOKEN}`],
      ['the token alone', STATS_TOKEN],
      ['a 10 KB bearer token', `Bearer ${'x'.repeat(10 * 1024)}`],
      ['a 10 KB basic credential', `Basic ${'QUJD'.repeat(2560)}`],
      ['latin-1 bytes', 'Bearer \u00e9\u00e8\u00ff'],
    ];
    for (const [label, authorization] of malformed) {
      for (const path of ['/__tiercache/stats', '/__tiercache/stats.json'])
        expectChallenge(await raw(f, path, { authorization }), `${label} ${path}`);
    }
  });

  it('the right Bearer token: 200 JSON in the StatsJson shape, never stored', async () => {
    await f.get('/a.txt');
    for (const headers of [bearer(STATS_TOKEN), { authorization: `bearer   ${STATS_TOKEN}` }]) {
      const answer = await f.get('/__tiercache/stats.json', { headers });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expectNeverStored(answer);
      const view = JSON.parse(answer.text) as StatsJson;
      expect(Object.keys(view).sort()).toEqual([
        'bypassReasons',
        'cost',
        'egress',
        'errors',
        'flushMs',
        'generatedAt',
        'hosts',
        'minutes',
        'recentPurges',
        'store',
        'tiers',
        'topMisses',
        'windowMinutes',
      ]);
      // The stats store's shards, all read: how many there are, and how many held counts of the window.
      const { store } = JSON.parse(answer.text) as { store: { shards: number; shardsWithCounts: number } };
      expect(store.shards).toBe(STATS_SHARDS);
      expect(store.shardsWithCounts).toBeGreaterThanOrEqual(0);
      expect(store.shardsWithCounts).toBeLessThanOrEqual(STATS_SHARDS);
      expect(new Date(view.generatedAt).toISOString()).toBe(view.generatedAt);
      expect(Math.abs(Date.parse(view.generatedAt) - Date.now())).toBeLessThan(60_000);
      expect(view.windowMinutes).toBe(60);
      // STATS_FLUSH_MS as the edge reads it: how long a request's counts may take to reach the sums.
      expect(view.flushMs).toBe(0);
      expect(Object.keys(view.tiers).sort()).toEqual([...TIER_NAMES].sort());
      for (const tier of [view.tiers.edge, view.tiers.shield]) {
        expect(Object.keys(tier.totals).sort()).toEqual([...TOTAL_FIELDS].sort());
        expect(Object.keys(tier.outcomes)).toEqual([...OUTCOMES]);
        for (const totals of Object.values(tier.outcomes))
          expect(Object.keys(totals).sort()).toEqual([...TOTAL_FIELDS].sort());
        for (const ratio of [tier.hitRatio, tier.byteHitRatio])
          expect(ratio === null || (ratio >= 0 && ratio <= 1)).toBe(true);
      }
      expect(Object.keys(view.egress).sort()).toEqual([
        'originBytes',
        'pricePerTB',
        'savedBytes',
        'savedUSD',
        'servedBytes',
        'spentUSD',
      ]);
      expect(view.minutes).toHaveLength(view.windowMinutes);
      for (const minute of view.minutes) expect(Object.keys(minute.tiers).sort()).toEqual([...TIER_NAMES].sort());
      for (const list of [view.hosts, view.topMisses, view.bypassReasons, view.errors, view.recentPurges])
        expect(Array.isArray(list)).toBe(true);
      // The object asked for first is in it (the page flushes its own isolate before reading).
      expect(view.tiers.edge.totals.requests).toBeGreaterThanOrEqual(1);
      expect(view.topMisses.map((miss) => miss.key)).toContain('/a.txt');
    }
  });

  it('prices what the window saw: the Durable Object requests the stats store counted, the KV list requests of the purge list, a month at that rate', async () => {
    await f.origin.putObject('cost.txt', 'object cost.txt', { 'cache-control': 'max-age=600' });
    for (let i = 0; i < 3; i++) expect((await f.get('/cost.txt')).status).toBe(200);
    const view = await settledStats((seen) => seen.cost.windowOperations.durableObjectRequests >= 2);
    const { cost } = view;
    // STATS_FLUSH_MS=0: every record is a flush, each one Durable Object request; each isolate's first request re-read
    // the purge list.
    expect(cost.windowOperations.durableObjectRequests).toBeGreaterThanOrEqual(2);
    expect(cost.windowOperations.durableObjectRowsRead).toBeGreaterThanOrEqual(
      cost.windowOperations.durableObjectRequests,
    );
    expect(cost.windowOperations.durableObjectRowsWritten).toBeGreaterThanOrEqual(
      cost.windowOperations.durableObjectRequests,
    );
    expect(cost.windowOperations.kvListRequests).toBeGreaterThanOrEqual(1);
    expect(cost.monthsPerWindow).toBeCloseTo(1 / 720, 9);
    const requests = cost.month.lines.find((line) => line.item === 'Workers requests');
    expect(requests?.quantity).toBe(view.tiers.edge.totals.requests * 720);
    expect(cost.month.lines.find((line) => line.item === 'Durable Object requests')?.quantity).toBe(
      cost.windowOperations.durableObjectRequests * 720,
    );
    expect(cost.month.totalUSD).toBeCloseTo(cost.month.platformUSD + cost.month.originEgressUSD, 9);
    expect(cost.month.egressAloneUSD).toBeCloseTo((view.egress.servedBytes * 720 * view.egress.pricePerTB) / 1e12, 9);
    const page = await f.get('/__tiercache/stats', { headers: bearer(STATS_TOKEN) });
    expect(page.text).toContain('<h2 id="cost-heading">What it costs</h2>');
    expect(page.text).toContain('<caption>The month, line by line</caption>');
  });

  it('the right Basic password (any user name): 200 HTML under its CSP, never stored', async () => {
    for (const headers of [basic('admin', STATS_TOKEN), basic('', STATS_TOKEN), basic('someone else', STATS_TOKEN)]) {
      const answer = await f.get('/__tiercache/stats', { headers });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/default-src 'none'/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).not.toMatch(/script-src/);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expectNeverStored(answer);
      expect(answer.text).toMatch(/^<!doctype html>/);
      expect(answer.text).not.toMatch(/<script/i);
    }
    // A password holding a colon is taken whole after the first one.
    const colon = await f.get('/__tiercache/stats.json', { headers: basic('admin', `${STATS_TOKEN}:more`) });
    expect(colon.status).toBe(401);
  });

  it("HEAD on both: the GET's status and headers, no body", async () => {
    const json = await raw(f, '/__tiercache/stats.json', bearer(STATS_TOKEN), 'HEAD');
    expect([json.status, json.body.byteLength, json.error]).toEqual([200, 0, undefined]);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expectNeverStored(json);
    const html = await raw(f, '/__tiercache/stats', basic('admin', STATS_TOKEN), 'HEAD');
    expect([html.status, html.body.byteLength, html.error]).toEqual([200, 0, undefined]);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expectNeverStored(html);
  });

  it('other methods on stats, stats.json and health: 405 with Allow: GET, HEAD', async () => {
    for (const path of ['/__tiercache/stats', '/__tiercache/stats.json', '/__tiercache/health']) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const label = `${method} ${path}`;
        const answer = await f.get(path, {
          method,
          headers: { ...bearer(STATS_TOKEN), 'content-type': 'application/json' },
          ...(method === 'DELETE' ? {} : { body: '{}' }),
        });
        expect(answer.status, label).toBe(405);
        expect(answer.headers.get('allow'), label).toBe('GET, HEAD');
        expect(answer.text, label).toMatch(/^405 /);
        expectNeverStored(answer, label);
      }
    }
  });

  it('odd spellings route on the canonical path: an endpoint named exactly, or a 404; never a 500, never the origin', async () => {
    f.tap.clear();
    const spellings: [string, number, RegExp | undefined][] = [
      // Dot segments resolve onto the purge endpoint, which takes only POST.
      ['/__tiercache/stats.json/../purge', 405, undefined],
      ['/__tiercache/stats/../purge', 405, undefined],
      ['/__tiercache/stats.json/%2e%2e/purge', 405, undefined],
      ['/__tiercache/x/../stats.json', 200, /^\{"generatedAt"/],
      ['/__tiercache/./stats.json', 200, /^\{"generatedAt"/],
      ['/a/../__tiercache/stats.json', 200, /^\{"generatedAt"/],
      ['/%5f_tiercache/stats.json', 200, /^\{"generatedAt"/],
      ['/__tiercache/x/%2E%2E/stats', 200, /^<!doctype html>/],
      ['/__tiercache/stats.json/%2e%2e/health', 200, /"shield":"ok"/],
      // Under the prefix, but no endpoint's canonical path: 404, never forwarded.
      ['/__tiercache%2fstats.json', 404, undefined],
      ['/__tiercache//stats.json', 404, undefined],
      ['/__tiercache/stats.json/..%2fpurge', 404, undefined],
      ['/__tiercache/stats.json/', 404, undefined],
      ['/__tiercache/STATS.json', 404, undefined],
      ['/__tiercache/stats.json%00', 404, undefined],
    ];
    for (const [path, status, body] of spellings) {
      const answer = await raw(f, path, bearer(STATS_TOKEN));
      expect(answer.status, path).toBe(status);
      if (status === 405) expect(answer.headers.get('allow'), path).toBe('POST');
      if (body !== undefined) expect(answer.text, path).toMatch(body);
      // Without the token, a spelling of the stats endpoint is still behind it.
      if (status === 200 && !path.includes('health'))
        expectChallenge(await raw(f, path), `${path} without credentials`);
    }
    await settle();
    // No spelling is forwarded; the one that names health asks the origin about one object (its probe: a HEAD, no
    // query).
    const forwarded = f.tap.requests.filter(
      (request) => request.method !== 'HEAD' || /_tiercache|%5f|\?/i.test(request.path),
    );
    expect(forwarded.map((request) => `${request.method} ${request.path}`)).toEqual([]);
    expect(f.tap.requests.length).toBeLessThanOrEqual(1);
  });

  it('health: 200 JSON {status, edge, shield: ok, version}, no-store, no token; HEAD without a body', async () => {
    for (const headers of [{}, bearer('not-the-token'), { authorization: 'Basic !!!' }]) {
      const answer = await f.get('/__tiercache/health', { headers });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expectNeverStored(answer);
      const health = JSON.parse(answer.text) as Record<string, unknown>;
      expect(health).toMatchObject({ status: 'ok', edge: 'ok', shield: 'ok', version: VERSION });
      expect(typeof health.shieldMs).toBe('number');
      expect(Number(answer.headers.get('content-length'))).toBe(answer.body.byteLength);
    }
    const head = await raw(f, '/__tiercache/health', {}, 'HEAD');
    expect([head.status, head.body.byteLength, head.error]).toEqual([200, 0, undefined]);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
  });

  it('escapes hostile input end to end: a path a client sent and a tag a purge named are text on the page, never markup', async () => {
    const hostilePath = "/<script>alert('x&y')</script>.txt";
    const missed = await raw(f, hostilePath);
    expect(missed.status).toBe(404);
    // A Host that is no host name never gets past the front; an odd but valid one is recorded lower-cased.
    expect((await raw(f, '/a.txt', { host: '<script>alert(1)</script>' })).status).toBe(400);
    expect((await raw(f, '/a.txt', { host: 'Odd-Host.Example:8443' })).status).toBe(200);
    const hostileTag = '<script>alert("tag")</script>';
    const purged = await f.get('/__tiercache/purge', {
      method: 'POST',
      headers: { ...bearer(PURGE_TOKEN), 'content-type': 'application/json' },
      body: JSON.stringify({ tags: [hostileTag] }),
    });
    expect(purged.status).toBe(200);

    const view = await settledStats(
      (stats) =>
        stats.topMisses.some((miss) => miss.key.includes('alert(')) &&
        stats.hosts.some((host) => host.host === 'odd-host.example:8443'),
    );
    // The path as the edge saw it (the URL parser percent-encodes < and >; ' and & stay).
    const key = view.topMisses.find((miss) => miss.key.includes('alert('))?.key ?? '';
    expect(key).toMatch(/^\/%3Cscript%3Ealert\('x&y'\)%3C\/script%3E\.txt$/);
    expect(view.recentPurges).toContainEqual(expect.objectContaining({ kind: 'tag', value: hostileTag }));

    const page = await f.get('/__tiercache/stats', { headers: basic('admin', STATS_TOKEN) });
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).not.toContain(hostileTag);
    expect(page.text).not.toContain(key);
    expect(page.text).toContain(escapeHtml(key));
    expect(page.text).toContain(escapeHtml(hostileTag));
    expect(page.text).toContain('&lt;script&gt;alert(&quot;tag&quot;)&lt;/script&gt;');
    expect(page.text).toContain('odd-host.example:8443');
  });

  it('stats, health and refused endpoint requests are not counted: only the object request made between them is', async () => {
    const before = await settledStats(() => true);
    const internal: [string, string, Record<string, string>][] = [
      ['GET', '/__tiercache/stats.json', bearer(STATS_TOKEN)],
      ['GET', '/__tiercache/stats', basic('admin', STATS_TOKEN)],
      ['HEAD', '/__tiercache/stats.json', bearer(STATS_TOKEN)],
      ['GET', '/__tiercache/stats.json', {}],
      ['GET', '/__tiercache/stats', bearer('wrong')],
      ['GET', '/__tiercache/stats.json', { authorization: 'Basic !!!' }],
      ['POST', '/__tiercache/stats', bearer(STATS_TOKEN)],
      ['PUT', '/__tiercache/health', {}],
      ['GET', '/__tiercache/health', {}],
      ['HEAD', '/__tiercache/health', {}],
      ['GET', '/__tiercache/nothing-here', {}],
      ['GET', '/__tiercache/x/../stats.json', bearer(STATS_TOKEN)],
      ['GET', '/%5f_tiercache/health', {}],
    ];
    for (const [method, path, headers] of internal)
      expect((await raw(f, path, headers, method)).status, `${method} ${path}`).toBeLessThan(500);
    // One object request, a miss at both tiers: the only one of all these to count.
    expect((await f.get('/marker.txt')).status).toBe(200);
    for (const [method, path, headers] of internal) await raw(f, path, headers, method);
    const edgeBefore = before.tiers.edge.totals.requests;
    const shieldBefore = before.tiers.shield.totals.requests;
    const after = await settledStats(
      (view) =>
        view.tiers.edge.totals.requests >= edgeBefore + 1 && view.tiers.shield.totals.requests >= shieldBefore + 1,
    );
    expect(after.tiers.edge.totals.requests).toBe(edgeBefore + 1);
    expect(after.tiers.edge.outcomes.miss.requests).toBe(before.tiers.edge.outcomes.miss.requests + 1);
    // The edge's health question to the shield is the shield's own endpoint: not counted either.
    expect(after.tiers.shield.totals.requests).toBe(shieldBefore + 1);
    expect(after.topMisses.map((miss) => miss.key).filter((key) => key.includes('tiercache'))).toEqual([]);
    await settle(300);
    const later = await statsJson();
    expect([later.tiers.edge.totals.requests, later.tiers.shield.totals.requests]).toEqual([
      edgeBefore + 1,
      shieldBefore + 1,
    ]);
  });
});
