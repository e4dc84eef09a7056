// Vary (RFC 9111 §4.1) with a plain HTTP origin: the client's headers reach the site, and a
// response that varies is kept once per variant at both tiers, each found only by requests
// that select it. Purges and invalidations of the URL reach every variant.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type Answer, cacheStatus, request, settle } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const PURGE_TOKEN = 'vary-purge-token';
let site: Site;
let stack: Stack;
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);
const lang = (value: string): RequestInit => ({ headers: { 'accept-language': value } });
const edge = (answer: Answer): string | undefined => cacheStatus(answer).at(-1)?.[1];

beforeAll(async () => {
  site = await startSite();
  site.page('/negotiated.html', '<p>one</p>', { 'cache-control': 'max-age=600', vary: 'Accept-Language' });
  site.page('/purged.html', '<p>purged</p>', { 'cache-control': 'max-age=600', vary: 'Accept-Language' });
  site.page('/star.html', '<p>star</p>', { 'cache-control': 'max-age=600', vary: '*' });
  stack = await startWorkers({ config: { ORIGIN_KIND: 'http', ORIGIN_URL: site.url, SHIELD_TOKEN: 't', PURGE_TOKEN } });
});
afterAll(async () => {
  await stack?.dispose();
  await site?.close();
});

describe('Vary (RFC 9111 §4.1)', () => {
  it('forwards the header a response varies on, and keeps a variant per value', async () => {
    site.received.length = 0;
    await get('/negotiated.html', lang('fr'));
    await get('/negotiated.html', lang('de'));
    await settle();
    expect(site.received.map((r) => r.headers['accept-language'])).toEqual(['fr', 'de']);
    site.received.length = 0;
    expect([edge(await get('/negotiated.html', lang('fr'))), edge(await get('/negotiated.html', lang('de')))]).toEqual([
      'hit',
      'hit',
    ]);
    expect(site.received).toEqual([]);
    // §4.1: values are compared after list whitespace is normalised.
    await get('/negotiated.html', lang('fr, de'));
    await settle();
    expect(edge(await get('/negotiated.html', lang('fr,de')))).toBe('hit');
    expect(site.received).toHaveLength(1);
    // RFC 9211 §2.2: the object's variants are known here, not this one: a vary-miss.
    expect(edge(await get('/negotiated.html', lang('en')))).toBe('fwd=vary-miss');
    expect(edge(await get('/negotiated.html', { method: 'HEAD', ...lang('it') }))).toBe('fwd=vary-miss');
  });

  it('a purge of the URL removes every variant, at both tiers', async () => {
    await get('/purged.html', lang('fr'));
    await get('/purged.html', lang('de'));
    await settle();
    const purged = await request(new URL('/__tiercache/purge', stack.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['/purged.html'] }),
    });
    expect(purged.status).toBeLessThan(300);
    await settle(300);
    site.received.length = 0;
    await get('/purged.html', lang('fr'));
    await get('/purged.html', lang('de'));
    expect(site.received.map((r) => r.headers['accept-language'])).toEqual(['fr', 'de']);
  });

  it('never stores a response with Vary: *', async () => {
    await get('/star.html');
    await settle();
    site.received.length = 0;
    await get('/star.html');
    expect(site.received).toHaveLength(1);
  });
});
