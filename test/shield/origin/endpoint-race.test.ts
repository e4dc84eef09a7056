// A GET or HEAD raced over an origin's endpoints (shield/origin/endpoint-race.ts), against endpoints whose answers are
// scripted: who is asked, when a hedge starts, which answer wins, that the loser is cancelled and released, that
// failures still fail over, and what is counted. Waits are short and generous: behaviour is asserted, not timings.

import { describe, expect, it } from 'vitest';
import { ClientGone } from '../../../shared/http/errors.ts';
import { HedgeTally } from '../../../shared/observe/hedge-tally.ts';
import type { RequestTarget } from '../../../shared/request/request-target.ts';
import { EndpointHealth } from '../../../shield/origin/endpoint-health.ts';
import { raceEndpoints } from '../../../shield/origin/endpoint-race.ts';
import { type HedgeLimits, HedgePolicy } from '../../../shield/origin/hedge-policy.ts';
import type { ObjectAsk, Origin } from '../../../shield/origin/origin.ts';

const NAMES = ['a', 'b', 'c'];
const WAIT_MS = 30;
const LIMITS: HedgeLimits = {
  percentile: 0.95,
  medianFactor: Number.POSITIVE_INFINITY,
  window: 16,
  minSamples: 100,
  floorMs: WAIT_MS,
  ceilingMs: WAIT_MS,
  requestShare: 0.25,
  requestBurst: 4,
  byteShare: 0.02,
  byteAllowance: 1 << 20,
  byteBank: 1 << 26,
};

/** What an endpoint does: answer this status after this long, or fail. */
type Script = { afterMs: number; status?: number } | { afterMs: number; error: 'unreachable' };

interface Scripted {
  endpoint: Pick<Origin, 'fetch'>;
  /** Each request's signal, as it was asked. */
  asked: AbortSignal[];
}

function scripted(script: Script): Scripted {
  const asked: AbortSignal[] = [];
  return {
    asked,
    endpoint: {
      fetch: (_target, _method, _forwarded, ask?: ObjectAsk) => {
        const signal = ask?.signal as AbortSignal;
        asked.push(signal);
        return new Promise<Response>((resolve, reject) => {
          const timer = setTimeout(() => {
            if ('error' in script) reject(new Error(script.error));
            else
              resolve(
                new Response('0123456789', { status: script.status ?? 200, headers: { 'content-length': '10' } }),
              );
          }, script.afterMs);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new ClientGone());
          });
        });
      },
    },
  };
}

interface Race {
  endpoints: Scripted[];
  health: EndpointHealth;
  tally: HedgeTally;
  policy: HedgePolicy;
  run: (signal?: AbortSignal) => Promise<Response>;
}

function race(scripts: Script[], limits: Partial<HedgeLimits> = {}): Race {
  const endpoints = scripts.map(scripted);
  const health = new EndpointHealth(() => 1);
  const tally = new HedgeTally();
  const policy = new HedgePolicy({ ...LIMITS, ...limits });
  const names = NAMES.slice(0, scripts.length);
  const run = (signal?: AbortSignal): Promise<Response> =>
    raceEndpoints(
      {
        endpoints: endpoints.map((each) => each.endpoint),
        names,
        order: health.order(names, Date.now()),
        health,
        policy,
        tally,
        failure: (response) =>
          response.status >= 500 || response.status === 429 ? { retryAfterMs: undefined } : undefined,
      },
      { path: '/object' } as RequestTarget,
      'GET',
      {},
      { signal },
    );
  return { endpoints, health, tally, policy, run };
}

const askedCounts = (each: Race): number[] => each.endpoints.map((endpoint) => endpoint.asked.length);
const states = (each: Race): string[] =>
  each.health.report(NAMES.slice(0, each.endpoints.length), Date.now()).map((e) => e.state);

describe('raceEndpoints', () => {
  it('asks the first endpoint alone when it answers within the wait', async () => {
    const each = race([{ afterMs: 0 }, { afterMs: 0 }, { afterMs: 0 }]);
    expect((await each.run()).status).toBe(200);
    expect(askedCounts(each)).toEqual([1, 0, 0]);
    expect(each.tally.take()).toEqual({ hedgesStarted: 0, hedgesWon: 0, hedgesLost: 0, hedgeBytes: 0 });
  });

  it('hedges a late first byte onto the next endpoint; the hedge wins and the first is cancelled, not failed', async () => {
    const each = race([{ afterMs: 2_000 }, { afterMs: 0 }, { afterMs: 0 }]);
    const started = Date.now();
    expect((await each.run()).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(askedCounts(each)).toEqual([1, 1, 0]);
    expect(each.endpoints[0]?.asked[0]?.aborted).toBe(true);
    expect(each.endpoints[1]?.asked[0]?.aborted).toBe(false);
    expect(states(each)).toEqual(['closed', 'closed', 'closed']);
    expect(each.health.report(['a'], Date.now())[0]?.failures).toBe(0);
    // The loser charged what it may have sent: never more than the answer's 10 bytes.
    expect(each.tally.take()).toEqual({ hedgesStarted: 1, hedgesWon: 1, hedgesLost: 0, hedgeBytes: 10 });
  });

  it('keeps the first answer when it comes before the hedge, and cancels the hedge', async () => {
    const each = race([{ afterMs: WAIT_MS + 60 }, { afterMs: 2_000 }]);
    expect((await each.run()).status).toBe(200);
    expect(askedCounts(each)).toEqual([1, 1]);
    expect(each.endpoints[0]?.asked[0]?.aborted).toBe(false);
    expect(each.endpoints[1]?.asked[0]?.aborted).toBe(true);
    expect(each.tally.take()).toMatchObject({ hedgesStarted: 1, hedgesWon: 0, hedgesLost: 1 });
  });

  it('does not hedge beyond its cap: the request waits for the first endpoint', async () => {
    const each = race([{ afterMs: WAIT_MS + 60 }, { afterMs: 0 }], { requestBurst: 0 });
    expect((await each.run()).status).toBe(200);
    expect(askedCounts(each)).toEqual([1, 0]);
    expect(each.tally.take().hedgesStarted).toBe(0);
  });

  it('fails over at once from a 500, without a hedge counted', async () => {
    const each = race([{ afterMs: 0, status: 500 }, { afterMs: 0 }, { afterMs: 0 }]);
    expect((await each.run()).status).toBe(200);
    expect(askedCounts(each)).toEqual([1, 1, 0]);
    expect(states(each)).toEqual(['open', 'closed', 'closed']);
    expect(each.tally.take().hedgesStarted).toBe(0);
  });

  it('waits for the first endpoint when the hedge fails, and the hedge endpoint is failed', async () => {
    const each = race([{ afterMs: WAIT_MS + 100 }, { afterMs: 0, error: 'unreachable' }]);
    expect((await each.run()).status).toBe(200);
    expect(askedCounts(each)).toEqual([1, 1]);
    expect(states(each)).toEqual(['closed', 'open']);
  });

  it('leaves a hedge under way when the first fails; that hedge, late too, is hedged onto the one left', async () => {
    const each = race([{ afterMs: WAIT_MS + 100, status: 503 }, { afterMs: 2_000, status: 500 }, { afterMs: 0 }]);
    expect((await each.run()).status).toBe(200);
    expect(askedCounts(each)).toEqual([1, 1, 1]);
    expect(each.endpoints[1]?.asked[0]?.aborted).toBe(true);
    expect(states(each)).toEqual(['open', 'closed', 'closed']);
    expect(each.tally.take()).toMatchObject({ hedgesStarted: 2, hedgesWon: 1, hedgesLost: 0 });
  });

  it('answers the last failure when every endpoint fails, its body still readable', async () => {
    const each = race([
      { afterMs: 0, status: 500 },
      { afterMs: 0, status: 503 },
    ]);
    const answer = await each.run();
    expect(answer.status).toBe(503);
    expect(await answer.text()).toBe('0123456789');
  });

  it('throws the last error when every endpoint cannot be reached', async () => {
    const each = race([
      { afterMs: 0, error: 'unreachable' },
      { afterMs: 0, error: 'unreachable' },
    ]);
    await expect(each.run()).rejects.toThrow('unreachable');
  });

  it('ends every attempt when the client goes away, each released', async () => {
    const each = race([{ afterMs: 2_000 }, { afterMs: 2_000 }]);
    const client = new AbortController();
    const answer = each.run(client.signal);
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS + 50));
    client.abort();
    await expect(answer).rejects.toBeInstanceOf(ClientGone);
    expect(each.endpoints.map((endpoint) => endpoint.asked[0]?.aborted)).toEqual([true, true]);
    expect(states(each)).toEqual(['closed', 'closed']);
  });

  it('learns the wait from the answers that won', async () => {
    const each = race([{ afterMs: 60 }, { afterMs: 0 }], {
      minSamples: 1,
      floorMs: 1,
      ceilingMs: 1_000,
      requestBurst: 0,
    });
    // No first byte known yet: the ceiling.
    expect(each.policy.thresholdMs()).toBe(1_000);
    await each.run();
    expect(each.policy.thresholdMs()).toBeGreaterThanOrEqual(50);
    expect(each.policy.thresholdMs()).toBeLessThan(1_000);
  });
});
