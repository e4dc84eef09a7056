import { describe, expect, it } from 'vitest';
import type { ZonePurgeConfig } from '../../shared/config/config.ts';
import { QUEUE_BUDGET_MS, TRIES_QUEUED } from '../../shared/purge/zone-purge.ts';
import { sendZonePurge, type ZonePurgePort } from '../../worker/zone-purge-client.ts';

const config: ZonePurgeConfig = {
  apiToken: 'secret-token',
  zoneId: '0123456789abcdef0123456789abcdef',
  apiBase: 'https://api.example/client/v4',
};

type Scripted = { status: number; retryAfter?: string; body?: unknown } | 'network error';

/** A port answering from `script` in order, recording each call, its sleeps and what was queued. */
function scriptedPort(script: Scripted[]) {
  const calls: { url: string; headers: Record<string, string>; body: unknown }[] = [];
  const sleeps: number[] = [];
  const queued: Promise<unknown>[] = [];
  const port: ZonePurgePort = {
    async fetch(url, init) {
      calls.push({ url, headers: init.headers, body: JSON.parse(init.body) as unknown });
      const next = script.shift() ?? { status: 200 };
      if (next === 'network error') throw new TypeError('fetch failed');
      const body = next.body ?? {
        success: next.status === 200,
        errors: next.status === 200 ? [] : [{ code: 10000, message: 'Authentication error' }],
        messages: [],
        result: next.status === 200 ? { id: 'purge-id' } : null,
      };
      return new Response(JSON.stringify(body), {
        status: next.status,
        headers: { 'content-type': 'application/json', ...(next.retryAfter ? { 'retry-after': next.retryAfter } : {}) },
      });
    },
    async sleep(ms) {
      sleeps.push(ms);
    },
    waitUntil(work) {
      queued.push(work);
    },
    now: () => 0,
  };
  return { port, calls, sleeps, queued };
}

describe('sendZonePurge', () => {
  it('POSTs each call to the zone with the bearer token and reports Cloudflare’s purge id', async () => {
    const { port, calls } = scriptedPort([{ status: 200 }, { status: 200 }]);
    const reports = await sendZonePurge([{ tags: ['a'] }, { prefixes: ['cdn.example/x/'] }], config, port);
    expect(calls.map((call) => [call.url, call.headers.authorization, call.body])).toEqual([
      [`${config.apiBase}/zones/${config.zoneId}/purge_cache`, 'Bearer secret-token', { tags: ['a'] }],
      [`${config.apiBase}/zones/${config.zoneId}/purge_cache`, 'Bearer secret-token', { prefixes: ['cdn.example/x/'] }],
    ]);
    expect(reports).toEqual([
      { call: { tags: ['a'] }, outcome: 'sent', id: 'purge-id', tries: 1 },
      { call: { prefixes: ['cdn.example/x/'] }, outcome: 'sent', id: 'purge-id', tries: 1 },
    ]);
  });

  it('waits out a 429’s Retry-After and tries again within the request', async () => {
    const { port, calls, sleeps, queued } = scriptedPort([
      { status: 429, retryAfter: '1' },
      { status: 429, retryAfter: '2' },
      { status: 200 },
    ]);
    const [report] = await sendZonePurge([{ tags: ['a'] }], config, port);
    expect(report).toMatchObject({ outcome: 'sent', tries: 3 });
    expect(sleeps).toEqual([1000, 2000]);
    expect(calls).toHaveLength(3);
    expect(queued).toEqual([]);
  });

  it('queues a call rate-limited past the bounded wait, says so, and keeps trying after the answer', async () => {
    const { port, calls, sleeps, queued } = scriptedPort([
      { status: 429, retryAfter: '10' },
      { status: 429, retryAfter: '5' },
      { status: 200 },
    ]);
    const [report] = await sendZonePurge([{ tags: ['a'] }], config, port);
    // Tried once in the request: the Retry-After is past what it may wait.
    expect(report).toEqual({
      call: { tags: ['a'] },
      outcome: 'rateLimited',
      tries: 1,
      queued: true,
      retryAfterMs: 10_000,
    });
    expect(queued).toHaveLength(1);
    await Promise.all(queued);
    // After the answer: its Retry-After, then the next one's, then accepted.
    expect(sleeps).toEqual([10_000, 5_000]);
    expect(calls).toHaveLength(3);
  });

  it(`leaves to the records a queued call whose Retry-After is past the ${QUEUE_BUDGET_MS / 1000} s the runtime keeps it`, async () => {
    const { port, calls, sleeps, queued } = scriptedPort([{ status: 429, retryAfter: '90' }, { status: 200 }]);
    const [report] = await sendZonePurge([{ tags: ['a'] }], config, port);
    expect(report).toMatchObject({ outcome: 'rateLimited', queued: true, retryAfterMs: 90_000 });
    await Promise.all(queued);
    expect(sleeps).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it(`queues every call after a rate-limited one behind it, in order, within ${QUEUE_BUDGET_MS / 1000} s after the answer`, async () => {
    const { port, calls, sleeps, queued } = scriptedPort([
      { status: 200 },
      { status: 429, retryAfter: '12' },
      { status: 200 },
      { status: 429, retryAfter: '12' },
      { status: 200 },
      { status: 429, retryAfter: '12' },
    ]);
    const tags = ['a', 'b', 'c', 'd'].map((tag) => ({ tags: [tag] }));
    const reports = await sendZonePurge(tags, config, port);
    expect(reports.map((report) => [report.outcome, report.tries])).toEqual([
      ['sent', 1],
      ['rateLimited', 1],
      ['rateLimited', 0],
      ['rateLimited', 0],
    ]);
    await Promise.all(queued);
    // c and d are not tried in the request (it would only spend the bucket on more 429s): b again after 12 s, c at
    // once, its 429 waited out (12 s), d at once; d's 429 would take the queue past its budget.
    expect(calls.map((call) => call.body)).toEqual(['a', 'b', 'b', 'c', 'c', 'd'].map((tag) => ({ tags: [tag] })));
    expect(sleeps).toEqual([12_000, 0, 12_000, 0]);
  });

  it('shares the bounded wait between the calls of one purge', async () => {
    const { port, sleeps, queued } = scriptedPort([
      { status: 429, retryAfter: '2' },
      { status: 200 },
      { status: 429, retryAfter: '2' },
      { status: 200 },
    ]);
    const reports = await sendZonePurge([{ tags: ['a'] }, { prefixes: ['cdn.example/b/'] }], config, port);
    // 2 s waited for the first; 2 s more would pass the 3 s the request may wait: the second is queued.
    expect(reports.map((report) => report.outcome)).toEqual(['sent', 'rateLimited']);
    expect(reports[1]).toMatchObject({ tries: 1, queued: true, retryAfterMs: 2000 });
    expect(sleeps[0]).toBe(2000);
    expect(queued).toHaveLength(1);
  });

  it(`gives a queued call at most ${TRIES_QUEUED} more tries`, async () => {
    const limited = Array.from({ length: 20 }, () => ({ status: 429, retryAfter: '5' }));
    const { port, calls, queued } = scriptedPort([{ status: 429, retryAfter: '5' }, ...limited]);
    await sendZonePurge([{ purge_everything: true }], config, port);
    await Promise.all(queued);
    expect(calls).toHaveLength(1 + TRIES_QUEUED);
  });

  it('reports a refusal with its errors, a 5xx and a network error as failed, never as sent', async () => {
    const { port } = scriptedPort([
      { status: 403 },
      { status: 502, body: 'not json' },
      'network error',
      { status: 200, body: { success: false, errors: [{ code: 1012, message: 'bad tags' }] } },
    ]);
    const reports = await sendZonePurge(
      [{ tags: ['a'] }, { tags: ['b'] }, { tags: ['c'] }, { tags: ['d'] }],
      config,
      port,
    );
    expect(reports.map((report) => report.outcome)).toEqual(['refused', 'failed', 'failed', 'refused']);
    expect(reports[0]).toMatchObject({ status: 403, reason: '10000 Authentication error' });
    expect(reports[1]).toMatchObject({ status: 502, reason: 'HTTP 502' });
    expect(reports[2]).toMatchObject({ status: undefined, reason: 'fetch failed' });
    expect(reports[3]).toMatchObject({ status: 200, reason: '1012 bad tags' });
  });
});
