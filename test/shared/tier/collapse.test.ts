import { describe, expect, it } from 'vitest';
import { claim, claimOrWait, isAwaited, isFilling } from '../../../shared/tier/collapse.ts';

let counter = 0;
/** A key no other test uses: fills are kept per isolate, across tests. */
const freshKey = (): string => `test-key-${++counter}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A stand-in for a tier's cache: a lookup that counts its calls. */
function store<T>() {
  let value: T | undefined;
  let lookups = 0;
  return {
    lookup: async (): Promise<T | undefined> => {
      lookups++;
      return value;
    },
    put: (v: T) => (value = v),
    get lookups() {
      return lookups;
    },
  };
}

describe('claimOrWait', () => {
  it('returns what is stored without claiming when the lookup finds it', async () => {
    const key = freshKey();
    const cache = store<string>();
    cache.put('stored');
    expect(await claimOrWait(key, cache.lookup, 1000)).toEqual({ found: 'stored', collapsed: false });
    expect(isFilling(key)).toBe(false);
  });

  it('makes the first claimant of a miss the leader, not collapsed', async () => {
    const key = freshKey();
    const first = await claimOrWait(key, store<string>().lookup, 1000);
    expect(first.found).toBeUndefined();
    if (first.found !== undefined) return;
    expect(first.claim).toMatchObject({ leader: true, collapsed: false });
    expect(isFilling(key)).toBe(true);
    first.claim.release();
    expect(isFilling(key)).toBe(false);
  });

  it("makes a second claimant wait for the first's release and read what it stored", async () => {
    const key = freshKey();
    const cache = store<string>();
    const first = await claimOrWait(key, cache.lookup, 5000);
    if (first.found !== undefined) throw new Error('expected a claim');
    let settled = false;
    const second = claimOrWait(key, cache.lookup, 5000).finally(() => (settled = true));
    await sleep(30);
    expect(settled).toBe(false);
    cache.put('filled');
    first.claim.release();
    expect(await second).toEqual({ found: 'filled', collapsed: true });
  });

  it('lets many waiters share one fill', async () => {
    const key = freshKey();
    const cache = store<number>();
    const first = await claimOrWait(key, cache.lookup, 5000);
    if (first.found !== undefined) throw new Error('expected a claim');
    const waiters = Array.from({ length: 20 }, () => claimOrWait(key, cache.lookup, 5000));
    await sleep(10);
    cache.put(42);
    first.claim.release();
    for (const waiter of await Promise.all(waiters)) expect(waiter).toEqual({ found: 42, collapsed: true });
  });

  it('makes a waiter the leader when the leader released without storing anything', async () => {
    const key = freshKey();
    const cache = store<string>();
    const first = await claimOrWait(key, cache.lookup, 5000);
    if (first.found !== undefined) throw new Error('expected a claim');
    const second = claimOrWait(key, cache.lookup, 5000);
    await sleep(10);
    first.claim.release();
    const answer = await second;
    expect(answer.found).toBeUndefined();
    if (answer.found === undefined) expect(answer.claim).toMatchObject({ leader: true, collapsed: true });
  });

  it('makes a waiter give up after maxWait and become the leader when the leader never releases', async () => {
    const key = freshKey();
    const cache = store<string>();
    const first = await claimOrWait(key, cache.lookup, 100);
    if (first.found !== undefined) throw new Error('expected a claim');
    const started = Date.now();
    const second = await claimOrWait(key, cache.lookup, 100);
    const waited = Date.now() - started;
    expect(second.found).toBeUndefined();
    if (second.found === undefined) expect(second.claim).toMatchObject({ leader: true, collapsed: true });
    expect(waited).toBeGreaterThanOrEqual(90);
    // Bounded: a hung leader never holds a waiter indefinitely (see the report on how the
    // bound compares with maxWait itself).
    expect(waited).toBeLessThan(3 * 100 + 200);
    first.claim.release();
    if (second.found === undefined) second.claim.release();
  });

  // However many rounds it looks again, a waiter's waits add up to maxWait at most (the bound is
  // generous: it tells one wait of 100 ms from three, on a busy machine).
  it('makes a waiter wait no longer than maxWait for a leader that never releases', async () => {
    const key = freshKey();
    const leader = claim(key);
    const started = Date.now();
    const answer = await claimOrWait(key, store<string>().lookup, 100);
    const waited = Date.now() - started;
    leader.release();
    if (answer.found === undefined) answer.claim.release();
    expect(waited).toBeLessThan(250);
  });

  it('skips the first lookup for `missed` when no fill is under way', async () => {
    const key = freshKey();
    const cache = store<string>();
    cache.put('would be found');
    const answer = await claimOrWait(key, cache.lookup, 1000, true);
    expect(cache.lookups).toBe(0);
    expect(answer.found).toBeUndefined();
    if (answer.found === undefined) {
      expect(answer.claim).toMatchObject({ leader: true, collapsed: false });
      answer.claim.release();
    }
  });

  it('still looks up after waiting for a fill under way, even for `missed`', async () => {
    const key = freshKey();
    const cache = store<string>();
    const leader = claim(key);
    const waiter = claimOrWait(key, cache.lookup, 5000, true);
    await sleep(10);
    cache.put('filled');
    leader.release();
    expect(await waiter).toEqual({ found: 'filled', collapsed: true });
    expect(cache.lookups).toBe(1);
  });
});

describe('isAwaited', () => {
  it('holds while another request waits for the fill of a key, and no longer once it has stopped waiting', async () => {
    const key = freshKey();
    const cache = store<string>();
    const first = await claimOrWait(key, cache.lookup, 5000);
    if (first.found !== undefined) throw new Error('expected a claim');
    expect(isAwaited(key)).toBe(false);
    const second = claimOrWait(key, cache.lookup, 5000);
    await sleep(10);
    expect(isAwaited(key)).toBe(true);
    cache.put('filled');
    first.claim.release();
    await second;
    expect(isAwaited(key)).toBe(false);
  });

  it('holds for as many waiters as wait, until the last has stopped (one gives up after maxWait)', async () => {
    const key = freshKey();
    const first = await claimOrWait(key, store<string>().lookup, 5000);
    if (first.found !== undefined) throw new Error('expected a claim');
    const brief = claimOrWait(key, store<string>().lookup, 20);
    const patient = claimOrWait(key, store<string>().lookup, 5000);
    const waited = await brief;
    if (waited.found === undefined && 'claim' in waited) waited.claim.release();
    expect(isAwaited(key)).toBe(true);
    first.claim.release();
    const last = await patient;
    if (last.found === undefined && 'claim' in last) last.claim.release();
    expect(isAwaited(key)).toBe(false);
  });
});

describe('claim', () => {
  it('does not let a release by a stale leader remove a newer claim', async () => {
    const key = freshKey();
    const old = claim(key);
    const newer = claim(key);
    old.release();
    expect(isFilling(key)).toBe(true);
    newer.release();
    expect(isFilling(key)).toBe(false);
  });

  it('still wakes the waiters of the stale leader when it releases', async () => {
    const key = freshKey();
    const cache = store<string>();
    const old = claim(key);
    const waiter = claimOrWait(key, cache.lookup, 5000);
    await sleep(10);
    const newer = claim(key);
    cache.put('from the old leader');
    old.release();
    expect(await waiter).toEqual({ found: 'from the old leader', collapsed: true });
    newer.release();
  });

  it('lets a release be called twice without harm', () => {
    const key = freshKey();
    const leader = claim(key);
    leader.release();
    leader.release();
    expect(isFilling(key)).toBe(false);
  });
});
