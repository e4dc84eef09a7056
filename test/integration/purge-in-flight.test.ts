// A purge made while an origin GET is in flight covers what that GET brings back: its bytes are
// dated by when the request was sent, not by when they arrived.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { request, settle, until } from './fixture.ts';

const PURGE_TOKEN = 'purge-secret';
let origin: AnyOrigin;
let stack: Stack;

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

describe('a purge while the origin is still answering', () => {
  it('covers the answer that arrives after it: the next request gets the bytes uploaded before the purge', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The old bytes, asked for before the upload and answered only after the purge.
    origin.answer('/in-flight.txt', {
      status: 200,
      headers: { 'cache-control': 'max-age=600', 'content-type': 'text/plain' },
      body: 'old',
      after: held,
    });
    const inFlight = request(new URL('/in-flight.txt', stack.url));
    await until(() => origin.receivedFor('/in-flight.txt').length === 1);
    expect(origin.receivedFor('/in-flight.txt')).toHaveLength(1);
    // The upload, then its purge, both while the first answer is on its way.
    origin.answer('/in-flight.txt', {
      status: 200,
      headers: { 'cache-control': 'max-age=600', 'content-type': 'text/plain' },
      body: 'new',
    });
    const purged = await request(new URL('/__tiercache/purge', stack.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['/in-flight.txt'] }),
    });
    expect(purged.status).toBe(200);
    release();
    // That request was made before the purge: either answer is right for it.
    expect(['old', 'new']).toContain((await inFlight).text);
    await settle();
    for (let i = 0; i < 3; i++) {
      expect((await request(new URL('/in-flight.txt', stack.url))).text).toBe('new');
      await settle(50);
    }
  });
});
