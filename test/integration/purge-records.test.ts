// The purge list forgets: a record lives RECORD_LIFETIME_MS and only the newest
// MAX_RECORDS (one per target) are kept, while an entry may be stored for about a year. Whatever the list
// forgets, nothing it purged is served again: an entry whose bytes came from the origin before
// the newest record the list dropped (or longer than a record's lifetime ago) is a miss.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PURGE_VALUES, MAX_RECORDS, RECORD_LIFETIME_MS } from '../../shared/purge/purge-rules.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, request, settle, startFixture } from './fixture.ts';

const PURGE_TOKEN = 'test-purge-token';
/** Stored for a year, as an immutable asset would be. */
const A_YEAR = { 'content-type': 'text/plain', 'cache-control': 'max-age=31536000' };
const clock = new FakeClock();
let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ PURGE_TOKEN }, { clock });
});
afterAll(() => f?.close());

async function purge(body: unknown): Promise<Answer> {
  const answer = await request(new URL('/__tiercache/purge', f.stack.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status, answer.text).toBe(200);
  return answer;
}

/** Reads `path` until the edge answers it from its cache. */
async function warm(path: string): Promise<void> {
  await f.get(path);
  await settle();
  await expectEdgeHit(path);
}

async function expectEdgeHit(path: string): Promise<void> {
  expect(
    cacheStatus(await f.get(path))
      .at(-1)
      ?.slice(0, 2),
    path,
  ).toEqual(['tiercache-edge', 'hit']);
}

/** `key` stored at both tiers as `before`, then changed at the origin to `after`. */
async function storedThenChanged(key: string): Promise<void> {
  await f.origin.putObject(key, 'before', A_YEAR);
  await warm(`/${key}`);
  await f.origin.putObject(key, 'after', A_YEAR);
}

describe('a purge the list no longer holds', () => {
  it(`is still in force once more than ${MAX_RECORDS} newer records pushed it out of the list`, async () => {
    await storedThenChanged('counted/x.txt');
    await purge({ prefixes: ['/counted/'] });
    await settle(5);
    // Newer purges of other objects, until the prefix's record is past the newest MAX_RECORDS.
    for (let made = 0; made <= MAX_RECORDS; made += MAX_PURGE_VALUES) {
      await purge({ urls: Array.from({ length: MAX_PURGE_VALUES }, (_, i) => `/elsewhere/${made + i}.txt`) });
    }
    await settle(50);
    const after = await f.get('/counted/x.txt');
    expect(after.text).toBe('after');
    expect(cacheStatus(after).map((member) => member.slice(0, 2).join(' '))).toEqual([
      'tiercache-shield fwd=uri-miss',
      'tiercache-edge fwd=uri-miss',
    ]);
    // What came from the origin after the records the list dropped is still served from cache.
    await settle();
    await expectEdgeHit('/counted/x.txt');
  }, 60_000);

  it('covers what was stored after the test clock moved (purges are timed on the clock entries are)', async () => {
    clock.advance(600);
    await storedThenChanged('later/x.txt');
    await purge({ prefixes: ['/later/'] });
    await settle(50);
    expect((await f.get('/later/x.txt')).text).toBe('after');
  });

  it('is still in force once the record has outlived its lifetime, while the entry would still be stored', async () => {
    await storedThenChanged('aged/x.txt');
    await purge({ prefixes: ['/aged/'] });
    await settle(50);
    clock.advance(RECORD_LIFETIME_MS / 1000 + 86_400);
    const after = await f.get('/aged/x.txt');
    expect(after.text).toBe('after');
    expect(cacheStatus(after).map((member) => member.slice(0, 2).join(' '))).toEqual([
      'tiercache-shield fwd=uri-miss',
      'tiercache-edge fwd=uri-miss',
    ]);
    await settle();
    await expectEdgeHit('/aged/x.txt');
  });
});
