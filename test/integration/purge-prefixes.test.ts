// A purge prefix is written as a client writes a path (`/two words/`, `/café/`, `/a+b/`) and is
// matched against the canonical paths the tiers key entries by: canonicalised exactly as a
// request for such a path would be, in both origin modes, or refused with a 400 that says why.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture } from './fixture.ts';

const PURGE_TOKEN = 'test-purge-token';

/** Folders whose names hold what a path keeps literally, what it must encode, and non-ASCII. */
const FOLDERS = ['a+b', "it's!", '(x)*', 'two words', 'café'];

/** POST /__tiercache/purge on `base`. */
function purge(base: string, body: unknown): Promise<Answer> {
  return request(new URL('/__tiercache/purge', base), {
    method: 'POST',
    headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Reads `path` until the edge answers it from its cache. */
async function warm(base: string, path: string): Promise<void> {
  await request(new URL(path, base));
  await settle();
  expect(
    cacheStatus(await request(new URL(path, base)))
      .at(-1)
      ?.slice(0, 2),
    path,
  ).toEqual(['tiercache-edge', 'hit']);
}

describe('purge prefixes with an S3 origin', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ PURGE_TOKEN });
  });
  afterAll(() => f?.close());

  it("purges keys holding + ! ' ( ) *, a space or non-ASCII under a prefix written as a client writes the path", async () => {
    for (const folder of [...FOLDERS, 'plain'])
      await f.origin.putObject(`s3odd/${folder}/1.txt`, 'before', { 'content-type': 'text/plain' });
    for (const folder of [...FOLDERS, 'plain']) await warm(f.stack.url, `/s3odd/${folder}/1.txt`);
    for (const folder of FOLDERS)
      await f.origin.putObject(`s3odd/${folder}/1.txt`, 'after', { 'content-type': 'text/plain' });

    const answer = await purge(f.stack.url, { prefixes: FOLDERS.map((folder) => `/s3odd/${folder}/`) });
    expect(answer.status).toBe(200);
    // What the prefixes were matched as: the keys' own encoding (SigV4 UriEncode).
    expect((JSON.parse(answer.text) as { matched: { prefixes: string[] } }).matched.prefixes).toEqual([
      '/s3odd/a%2Bb/',
      '/s3odd/it%27s%21/',
      '/s3odd/%28x%29%2A/',
      '/s3odd/two%20words/',
      '/s3odd/caf%C3%A9/',
    ]);
    await settle(50);
    for (const folder of FOLDERS) {
      const after = await f.get(`/s3odd/${folder}/1.txt`);
      expect(after.text, folder).toBe('after');
      expect(
        cacheStatus(after).map((member) => member.slice(0, 2).join(' ')),
        folder,
      ).toEqual(['tiercache-shield fwd=uri-miss', 'tiercache-edge fwd=uri-miss']);
    }
    expect(
      cacheStatus(await f.get('/s3odd/plain/1.txt'))
        .at(-1)
        ?.slice(0, 2),
    ).toEqual(['tiercache-edge', 'hit']);
  });

  it('refuses a prefix that no key can start with (malformed percent-encoding, bytes that are not UTF-8) with 400 saying why', async () => {
    const malformed = await purge(f.stack.url, { prefixes: ['/s3odd/%zz'] });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(/expected a prefix .*got "\/s3odd\/%zz".*percent-encoding/);
    const notUtf8 = await purge(f.stack.url, { prefixes: ['/s3odd/%FF'] });
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.text).toMatch(/not valid UTF-8/);
  });

  it('refuses a prefix with a fragment, which no request path carries, saying how to write a "#" in a key', async () => {
    const answer = await purge(f.stack.url, { prefixes: ['/s3odd/#1'] });
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/%23/);
  });

  it('still purges everything under "/"', async () => {
    await f.origin.putObject('s3odd/root.txt', 'before', { 'content-type': 'text/plain' });
    await warm(f.stack.url, '/s3odd/root.txt');
    await f.origin.putObject('s3odd/root.txt', 'after', { 'content-type': 'text/plain' });
    const answer = await purge(f.stack.url, { prefixes: ['/'] });
    expect(answer.status).toBe(200);
    await settle(50);
    expect((await f.get('/s3odd/root.txt')).text).toBe('after');
  });
});

describe('purge prefixes with an HTTP origin', () => {
  let origin: AnyOrigin;
  let stack: Stack;
  const served = new Map<string, number>();
  beforeAll(async () => {
    origin = await startAnyOrigin();
    stack = await startWorkers({
      config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't', PURGE_TOKEN },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await origin?.close();
  });

  /** The path as the site receives it (the URL parser's encoding), answered `v1`, `v2`, … per request. */
  function page(path: string): void {
    const received = new URL(path, 'http://site').pathname;
    origin.answer(received, () => {
      const count = (served.get(received) ?? 0) + 1;
      served.set(received, count);
      return {
        status: 200,
        headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=600' },
        body: `v${count}`,
      };
    });
  }

  it("purges paths holding + ! ' ( ) *, a space or non-ASCII under a prefix written as a client writes the path", async () => {
    for (const folder of [...FOLDERS, 'plain']) page(`/httpodd/${folder}/1.html`);
    for (const folder of [...FOLDERS, 'plain']) await warm(stack.url, `/httpodd/${folder}/1.html`);

    const answer = await purge(stack.url, { prefixes: FOLDERS.map((folder) => `/httpodd/${folder}/`) });
    expect(answer.status).toBe(200);
    // A site's paths are matched as the URL parser spells them: sub-delimiters stay as written.
    expect((JSON.parse(answer.text) as { matched: { prefixes: string[] } }).matched.prefixes).toEqual([
      '/httpodd/a+b/',
      "/httpodd/it's!/",
      '/httpodd/(x)*/',
      '/httpodd/two%20words/',
      '/httpodd/caf%C3%A9/',
    ]);
    await settle(50);
    for (const folder of FOLDERS) {
      const after = await request(new URL(`/httpodd/${folder}/1.html`, stack.url));
      expect(after.text, folder).toBe('v2');
      expect(
        cacheStatus(after).map((member) => member.slice(0, 2).join(' ')),
        folder,
      ).toEqual(['tiercache-shield fwd=uri-miss', 'tiercache-edge fwd=uri-miss']);
    }
    expect(
      cacheStatus(await request(new URL('/httpodd/plain/1.html', stack.url)))
        .at(-1)
        ?.slice(0, 2),
    ).toEqual(['tiercache-edge', 'hit']);
  });
});
