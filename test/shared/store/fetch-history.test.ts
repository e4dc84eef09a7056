// What the shield has seen of each entry it fetched from the origin (shared/store/fetch-history.ts): counted, the
// first fetch's time kept, the asks of one read counted once, bounded by forgetting the entry seen longest ago.

import { describe, expect, it } from 'vitest';
import { FetchHistory, ONE_READ_MS } from '../../../shared/store/fetch-history.ts';

const T0 = Date.parse('2026-12-04T12:00:00Z');

describe('FetchHistory', () => {
  it('counts the fetches of a key and keeps when the first was made', () => {
    const history = new FetchHistory();
    expect(history.of('a')).toBeUndefined();
    history.fetched('a', T0);
    history.fetched('a', T0 + ONE_READ_MS);
    history.fetched('b', T0 + 6000);
    expect(history.of('a')).toEqual({ fetches: 2, first: T0 });
    expect(history.of('b')).toEqual({ fetches: 1, first: T0 + 6000 });
  });

  it('counts fetches of a key close to the last as one: the asks of one read, not a re-fetch after eviction', () => {
    const history = new FetchHistory();
    for (const at of [0, 200, 5000, ONE_READ_MS + 4999]) history.fetched('a', T0 + at);
    expect(history.of('a')).toEqual({ fetches: 1, first: T0 });
    history.fetched('a', T0 + 2 * ONE_READ_MS + 5000);
    expect(history.of('a')).toEqual({ fetches: 2, first: T0 });
  });

  it('keeps the bytes its last fetch moved, and those known before when a fetch does not say', () => {
    const history = new FetchHistory();
    history.fetched('a', T0, 20_000);
    expect(history.of('a')).toEqual({ fetches: 1, first: T0, bytes: 20_000 });
    history.fetched('a', T0 + ONE_READ_MS, 30_000);
    history.fetched('a', T0 + 2 * ONE_READ_MS);
    expect(history.of('a')).toEqual({ fetches: 3, first: T0, bytes: 30_000 });
  });

  it('forgets the key seen longest ago past its bound, a fetch making a key the newest again', () => {
    const history = new FetchHistory(2);
    history.fetched('a', T0);
    history.fetched('b', T0 + 1);
    history.fetched('a', T0 + ONE_READ_MS);
    history.fetched('c', T0 + ONE_READ_MS + 1);
    expect(history.size).toBe(2);
    expect(history.of('b')).toBeUndefined();
    expect(history.of('a')).toEqual({ fetches: 2, first: T0 });
    expect(history.of('c')).toEqual({ fetches: 1, first: T0 + ONE_READ_MS + 1 });
  });
});
