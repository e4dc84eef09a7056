// Vary (RFC 9111 §4.1) with a plain HTTP origin: the tiers forward no client header on GET, so
// a response that varies on one is the same for every client and is stored once; `Vary: *`
// never matches, so it is never stored.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../stack/workers.ts';
import { type Answer, cacheStatus, request, settle } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

let site: Site;
let stack: Stack;
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);

beforeAll(async () => {
  site = await startSite();
  site.page('/negotiated.html', '<p>one</p>', { 'cache-control': 'max-age=600', vary: 'Accept-Language' });
  site.page('/star.html', '<p>star</p>', { 'cache-control': 'max-age=600', vary: '*' });
  stack = await startWorkers({ config: { ORIGIN_KIND: 'http', ORIGIN_URL: site.url, SHIELD_TOKEN: 't' } });
});
afterAll(async () => {
  await stack?.dispose();
  await site?.close();
});

describe('Vary', () => {
  it('stores a response that varies on a header the tiers never forward, and serves it to every client', async () => {
    await get('/negotiated.html', { headers: { 'accept-language': 'fr' } });
    await settle();
    site.received.length = 0;
    const other = await get('/negotiated.html', { headers: { 'accept-language': 'de' } });
    expect(other.text).toBe('<p>one</p>');
    expect(cacheStatus(other).at(-1)?.[1]).toBe('hit');
    expect(site.received).toEqual([]);
  });

  it('never stores a response with Vary: *', async () => {
    await get('/star.html');
    await settle();
    site.received.length = 0;
    await get('/star.html');
    expect(site.received).toHaveLength(1);
  });

  it('never forwards the client header a response varies on', async () => {
    site.received.length = 0;
    await get('/star.html', { headers: { 'accept-language': 'fr' } });
    expect(site.received[0]?.headers['accept-language']).toBeUndefined();
  });
});
