// A 429 storm through the real workers: the origin (a real S3 server behind a tap) answers
// `429 SlowDown` with `Retry-After: 120` as Storj's gateway does once a project has too many transfers under way.
// - The shield's transfers to it stay within ORIGIN_CONCURRENCY however many clients ask at once (the tap counts them
//   from arrival until their connection is done with, bodies included).
// - No client waits longer than ORIGIN_BUSY_WAIT_MS for it: a copy that may be served stale (stale-if-error) is, and
//   anything else is a 503 at once, with a short Retry-After, never the origin's 120 s.
// - Once the storm is over, the shield asks again (its limit grows back) and every object is served.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock, type Fixture, startFixture } from './fixture.ts';

const BUDGET = 3;
const BUSY_WAIT_MS = 1_500;
const KiB = 1024;
/** Objects read cold: six by as many clients at once (each body arriving slowly, so transfers overlap), then the rest in the storm. */
const COLD = 18;
const AT_ONCE = 6;
/** Objects read once before the storm, then stale when it comes; they allow a day of stale-if-error. */
const KEPT = 4;

const clock = new FakeClock();
let f: Fixture;
const bodies = new Map<string, Uint8Array>();

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const objectBytes = (seed: number, size: number): Uint8Array =>
  Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed * 7 + (i >> 8)) & 0xff);

beforeAll(async () => {
  f = await startFixture({ ORIGIN_CONCURRENCY: String(BUDGET), ORIGIN_BUSY_WAIT_MS: String(BUSY_WAIT_MS) }, { clock });
  for (let i = 0; i < COLD; i++) {
    const bytes = objectBytes(i, 48 * KiB);
    bodies.set(`cold-${i}.bin`, bytes);
    await f.origin.putObject(`cold-${i}.bin`, bytes, { 'content-type': 'application/octet-stream' });
  }
  for (let i = 0; i < KEPT; i++) {
    const bytes = objectBytes(100 + i, 16 * KiB);
    bodies.set(`kept-${i}.bin`, bytes);
    await f.origin.putObject(`kept-${i}.bin`, bytes, {
      'content-type': 'application/octet-stream',
      'cache-control': 'max-age=60, stale-if-error=86400',
    });
  }
});
afterAll(async () => {
  await f?.close();
});

/** GETs of `keys` all at once; each with its status, time and whether its body is the object's. */
async function readAll(
  keys: string[],
): Promise<{ key: string; status: number; ms: number; exact: boolean; retryAfter: string | null }[]> {
  return Promise.all(
    keys.map(async (key) => {
      const started = Date.now();
      const answer = await f.get(`/${key}`);
      const expected = bodies.get(key) as Uint8Array;
      return {
        key,
        status: answer.status,
        ms: Date.now() - started,
        exact: answer.status === 200 && sha(answer.body) === sha(expected),
        retryAfter: answer.headers.get('retry-after'),
      };
    }),
  );
}

describe('a 429 storm at the origin', () => {
  it('keeps the shield within its budget with many clients at once, every one served the right bytes', async () => {
    // Slow bodies (about 200 ms each): six clients at once would be six transfers without the budget.
    f.tap.faults((request) =>
      request.method === 'GET' && request.path.includes('cold-')
        ? { kind: 'throttle', bytesPerSecond: 240 * KiB }
        : undefined,
    );
    f.tap.clear();
    const reads = await readAll([...bodies.keys()].filter((key) => key.startsWith('cold-')).slice(0, AT_ONCE));
    expect(reads.map((read) => read.exact)).toEqual(reads.map(() => true));
    expect(f.tap.busiest()).toBeLessThanOrEqual(BUDGET);
    expect(f.tap.busiest()).toBeGreaterThan(1);
  });

  it('answers a storm quickly: stale copies where they may stand in, else a 503 with a short Retry-After', async () => {
    f.tap.faults(undefined);
    const kept = [...bodies.keys()].filter((key) => key.startsWith('kept-'));
    for (const read of await readAll(kept)) expect(read.exact, read.key).toBe(true);
    // Past their max-age at both tiers: each read now asks the origin.
    clock.advance(120);
    f.tap.clear();
    f.tap.faults((request) =>
      request.method === 'GET' ? { kind: 'busy', status: 429, retryAfter: '120' } : undefined,
    );
    const cold = [...bodies.keys()].filter((key) => key.startsWith('cold-')).slice(AT_ONCE);
    const reads = await readAll([...kept, ...cold]);
    const table = reads.map(({ key, status, ms, retryAfter }) => ({ key, status, ms, retryAfter }));
    console.log(`[storm] ${f.tap.requests.length} origin requests, at most ${f.tap.busiest()} at once`);
    console.table(table);

    for (const read of reads) {
      // No client sits out the origin's 120 s: each is answered within the configured wait (plus its own round trips).
      expect(read.ms, read.key).toBeLessThan(BUSY_WAIT_MS + 1_500);
      if (read.key.startsWith('kept-')) expect(read.exact, `${read.key} served stale`).toBe(true);
      else {
        expect(read.status, read.key).toBe(503);
        expect(Number(read.retryAfter), read.key).toBeGreaterThanOrEqual(1);
        expect(Number(read.retryAfter), read.key).toBeLessThanOrEqual(5);
      }
    }
    expect(f.tap.busiest()).toBeLessThanOrEqual(BUDGET);
    // The shield slowed itself down: far fewer origin requests than the clients', never one per client retry.
    expect(f.tap.requests.length).toBeLessThan(reads.length);
  });

  it('asks the origin again once the storm is over, and serves every object', async () => {
    f.tap.faults(undefined);
    // Past any cool-down the storm left (30 s at most, on the shield's real clock: waited out here by its cap).
    const cold = [...bodies.keys()].filter((key) => key.startsWith('cold-')).slice(AT_ONCE, AT_ONCE + 3);
    let reads = await readAll(cold);
    for (let tries = 0; tries < 40 && reads.some((read) => !read.exact); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      reads = await readAll(cold);
    }
    expect(reads.map((read) => read.exact)).toEqual([true, true, true]);
  });
});
