// RFC 9111 §4.2.4 at the edge when the shield itself cannot be reached: "disconnected", so a
// stale copy may stand in for GET as for HEAD, unless must-revalidate forbids it, and with no
// stale-if-error configured or sent. The shield is the real one, cut off on demand
// (unreachable-shield.js).

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type Answer, cacheStatus, FakeClock, request, settle } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

let site: Site;
let stack: Stack;
const clock = new FakeClock();
/** Where the fixture is cut off and restored (unreachable-shield.js). */
const CUT_PATH = '/__test/cut-shield';
const RESTORE_PATH = '/__test/restore-shield';
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);
const edgeOf = (answer: Answer): string[] => cacheStatus(answer).find((member) => member[0] === 'tiercache-edge') ?? [];
const shieldReachable = async (reachable: boolean): Promise<void> => {
  const answer = await fetch(new URL(reachable ? RESTORE_PATH : CUT_PATH, stack.shieldUrl));
  expect(answer.status).toBe(200);
  await answer.arrayBuffer();
};

beforeAll(async () => {
  site = await startSite();
  site.page('/kept.html', '<p>kept</p>', { 'cache-control': 'max-age=60' });
  site.page('/strict.html', '<p>strict</p>', { 'cache-control': 'max-age=60, must-revalidate' });
  stack = await startWorkers({
    // No stale window of the operator's: only being disconnected lets a stale copy stand in.
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: site.url,
      SHIELD_TOKEN: 't',
      STALE_WHILE_REVALIDATE: '0',
      STALE_IF_ERROR: '0',
    },
    entries: { shield: 'test/integration/unreachable-shield.js' },
    clock: clock.now,
  });
});
afterEach(() => shieldReachable(true));
afterAll(async () => {
  await stack?.dispose();
  await site?.close();
});

describe('RFC 9111 §4.2.4 — the shield unreachable from the edge', () => {
  it('a stale copy at the edge stands in for GET and HEAD, reported as stale-if-error with no fwd-status (no answer came)', async () => {
    expect((await get('/kept.html')).text).toBe('<p>kept</p>');
    await settle();
    clock.advance(600);
    await shieldReachable(false);
    const answer = await get('/kept.html');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('<p>kept</p>');
    expect(edgeOf(answer)).toEqual(expect.arrayContaining(['fwd=stale', 'detail=stale-if-error']));
    expect(edgeOf(answer).some((part) => part.startsWith('fwd-status='))).toBe(false);
    expect(Number(answer.headers.get('age'))).toBeGreaterThanOrEqual(600);
    // HEAD, the same way (RFC 9211 §2.2: it went forward, so fwd=stale, not hit).
    const head = await get('/kept.html', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(edgeOf(head).filter((part) => !part.startsWith('ttl='))).toEqual(
      edgeOf(answer).filter((part) => !part.startsWith('ttl=')),
    );
  });

  it('must-revalidate forbids the stale copy even so: our 502', async () => {
    expect((await get('/strict.html')).text).toBe('<p>strict</p>');
    await settle();
    clock.advance(600);
    await shieldReachable(false);
    expect((await get('/strict.html')).status).toBe(502);
    expect((await get('/strict.html', { method: 'HEAD' })).status).toBe(502);
  });

  it('health is 503 with shield unreachable and the origin unknown (nobody could ask it), and 200 again once the shield answers', async () => {
    await shieldReachable(false);
    const cutOff = await get('/__tiercache/health');
    expect(cutOff.status).toBe(503);
    expect(JSON.parse(cutOff.text)).toMatchObject({
      status: 'failing',
      edge: 'ok',
      shield: 'unreachable',
      origin: 'unknown',
    });
    await shieldReachable(true);
    const back = await get('/__tiercache/health');
    expect(back.status).toBe(200);
    expect(JSON.parse(back.text)).toMatchObject({ status: 'ok', shield: 'ok', origin: 'ok' });
  });
});
