// tiercache as a faithful HTTP cache in front of a site (ORIGIN_KIND=http, default settings),
// grouped by the RFC section each behaviour comes from; each test asserts what the origin
// received and what the client got. The origin answers whatever a test scripts (any-origin.ts).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, type Scripted, startAnyOrigin } from './any-origin.ts';
import { type Answer, cacheStatus, FakeClock, request, settle } from './fixture.ts';

let origin: AnyOrigin;
let stack: Stack;
const clock = new FakeClock();
let n = 0;
/** A path no other test uses. */
const fresh = (name: string): string => `/${name}-${++n}`;
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);
const edgeOf = (answer: Answer): string[] => cacheStatus(answer).find((member) => member[0] === 'tiercache-edge') ?? [];

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({
    config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't' },
    clock: clock.now,
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

describe('RFC 9110 §7.6 — a proxy forwards the end-to-end request headers', () => {
  it("§7.6.1: the client's end-to-end headers reach the origin, credentials and cookies included; hop-by-hop ones do not", async () => {
    const path = fresh('forwarded');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'no-store' }, body: 'ok' });
    await get(path, {
      headers: {
        accept: 'text/html',
        'accept-language': 'fr',
        authorization: 'Bearer abc',
        cookie: 'session=1',
        'x-request-id': 'r-1',
        'user-agent': 'test/1',
        te: 'trailers',
      },
    });
    const [received] = origin.receivedFor(path);
    expect(received?.headers).toMatchObject({
      accept: 'text/html',
      'accept-language': 'fr',
      authorization: 'Bearer abc',
      cookie: 'session=1',
      'x-request-id': 'r-1',
      'user-agent': 'test/1',
    });
    expect(received?.headers.te).toBeUndefined();
  });

  it("§7.2: Host is the origin's; the client's host goes in X-Forwarded-Host and Forwarded (RFC 7239)", async () => {
    const path = fresh('host');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'no-store' }, body: 'ok' });
    await get(path);
    const [received] = origin.receivedFor(path);
    const edgeHost = new URL(stack.url).host;
    expect(received?.headers.host).toBe(new URL(origin.url).host);
    expect(received?.headers['x-forwarded-host']).toBe(edgeHost);
    expect(received?.headers['x-forwarded-proto']).toBe('http');
    expect(received?.headers.forwarded).toBe(`host="${edgeHost}";proto=http`);
  });

  it("the tiers' own Range and conditions replace the client's, and nothing of the tiers' reaches the origin", async () => {
    const path = fresh('managed');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=600', etag: '"a"' }, body: 'abcdefghij' });
    const answer = await get(path, {
      headers: { range: 'bytes=2-4', 'if-none-match': '"zzz"', 'x-tiercache-host': 'evil.example', 'cf-ray': 'forged' },
    });
    expect(answer.status).toBe(206);
    expect(answer.text).toBe('cde');
    const [received] = origin.receivedFor(path);
    expect(received?.headers['if-none-match']).toBeUndefined();
    expect(received?.headers.range).toMatch(/^bytes=0-\d+$/);
    // (CF-Worker is the platform's own mark on every subrequest a Worker makes.)
    expect(
      Object.keys(received?.headers ?? {}).filter(
        (name) => name.startsWith('x-tiercache-') || (name.startsWith('cf-') && name !== 'cf-worker'),
      ),
    ).toEqual([]);
  });
});

describe('RFC 9111 §4.1 — Vary is a secondary cache key, at both tiers', () => {
  it('§4.1: keeps one variant per value of the selecting header, side by side', async () => {
    const path = fresh('negotiated');
    origin.answer(path, (r) => ({
      status: 200,
      headers: { 'cache-control': 'max-age=600', vary: 'Accept-Language', 'content-type': 'text/plain' },
      body: `lang=${r.headers['accept-language'] ?? 'none'}`,
    }));
    expect((await get(path, { headers: { 'accept-language': 'fr' } })).text).toBe('lang=fr');
    expect((await get(path, { headers: { 'accept-language': 'de' } })).text).toBe('lang=de');
    await settle();
    const fr = await get(path, { headers: { 'accept-language': 'fr' } });
    const de = await get(path, { headers: { 'accept-language': 'de' } });
    expect([fr.text, de.text]).toEqual(['lang=fr', 'lang=de']);
    expect([edgeOf(fr)[1], edgeOf(de)[1]]).toEqual(['hit', 'hit']);
    expect(origin.receivedFor(path)).toHaveLength(2);
  });

  it('§4.1: a request without the selecting header matches only a response stored for one without it', async () => {
    const path = fresh('absent');
    origin.answer(path, (r) => ({
      status: 200,
      headers: { 'cache-control': 'max-age=600', vary: 'accept-encoding, x-variant' },
      body: `v=${r.headers['x-variant'] ?? 'absent'}`,
    }));
    expect((await get(path)).text).toBe('v=absent');
    await settle();
    expect((await get(path, { headers: { 'x-variant': '' } })).text).toBe('v=');
    expect((await get(path)).text).toBe('v=absent');
    expect(origin.receivedFor(path)).toHaveLength(2);
  });

  it('§4.1: the shield keeps variants too: a second edge key (another host) reads them from the shield', async () => {
    const path = fresh('shield-variants');
    origin.answer(path, (r) => ({
      status: 200,
      headers: { 'cache-control': 'max-age=600', vary: 'Accept-Language' },
      body: `lang=${r.headers['accept-language'] ?? 'none'}`,
    }));
    await get(path, { headers: { 'accept-language': 'fr' } });
    await get(path, { headers: { 'accept-language': 'de' } });
    await settle();
    // Another client host is another edge key; the shield's entry is keyed by the origin's URL.
    const other = new URL(path, stack.url.replace('127.0.0.1', 'localhost'));
    const de = await request(other, { headers: { 'accept-language': 'de' } });
    expect(de.text).toBe('lang=de');
    expect(cacheStatus(de).find((m) => m[0] === 'tiercache-shield')?.[1]).toBe('hit');
    expect(origin.receivedFor(path)).toHaveLength(2);
  });

  it('§4.1: a response with Vary: * is never reused', async () => {
    const path = fresh('star');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=600', vary: '*' }, body: 'star' });
    await get(path);
    await settle();
    expect((await get(path)).text).toBe('star');
    expect(origin.receivedFor(path)).toHaveLength(2);
  });
});

describe("RFC 9110 §15 — the origin's answer is the answer", () => {
  const cases: [status: number, body: string][] = [
    [201, 'created'],
    [202, 'accepted'],
    [203, 'non-authoritative'],
    [301, 'moved'],
    [302, 'found'],
    [307, 'temporary'],
    [308, 'permanent'],
    [400, 'bad request page'],
    [403, 'forbidden page'],
    [404, "the site's own 404 page"],
    [405, 'not allowed page'],
    [410, 'gone page'],
    [414, 'too long'],
    [499, 'odd'],
    [500, 'internal error page'],
    [502, 'bad gateway page'],
    [503, 'maintenance page'],
    [504, 'timeout page'],
    [599, 'unknown server error'],
  ];
  for (const [status, body] of cases) {
    it(`§15: a ${status} passes with its own headers and body`, async () => {
      const path = fresh(`status-${status}`);
      origin.answer(path, {
        status,
        headers: { 'content-type': 'text/plain', 'x-site': 'yes', location: '/elsewhere', 'cache-control': 'no-store' },
        body,
      });
      const answer = await get(path);
      expect(answer.status).toBe(status);
      expect(answer.text).toBe(body);
      expect(answer.headers.get('x-site')).toBe('yes');
      expect(answer.headers.get('location')).toBe('/elsewhere');
      expect(answer.headers.get('content-range')).toBeNull();
    });
  }

  it('§15: a status outside 100–599 is no HTTP answer: a 502 of ours, saying so', async () => {
    const path = fresh('status-999');
    origin.answer(path, { status: 999, headers: { 'content-type': 'text/plain' }, body: 'odd' });
    const answer = await get(path);
    expect(answer.status).toBe(502);
    expect(cacheStatus(answer).find((m) => m[0] === 'tiercache-shield')).toContain('detail=origin-status');
    expect((await get(path, { method: 'HEAD' })).status).toBe(502);
  });

  it('§15.3.5: a 204 passes without a body, for GET and HEAD', async () => {
    const path = fresh('no-content');
    origin.answer(path, { status: 204, headers: { 'x-site': 'yes' } });
    const answer = await get(path);
    expect(answer.status).toBe(204);
    expect(answer.body.byteLength).toBe(0);
    expect(answer.headers.get('x-site')).toBe('yes');
    expect((await get(path, { method: 'HEAD' })).status).toBe(204);
  });

  it('§15.3.5, §15.1: a 204 with freshness is stored and served from the store without a body', async () => {
    const path = fresh('no-content-stored');
    origin.answer(path, { status: 204, headers: { 'cache-control': 'max-age=600', 'x-site': 'yes' } });
    await get(path);
    await settle();
    const hit = await get(path);
    expect([hit.status, hit.body.byteLength, hit.headers.get('x-site'), edgeOf(hit)[1]]).toEqual([
      204,
      0,
      'yes',
      'hit',
    ]);
    expect(origin.receivedFor(path)).toHaveLength(1);
  });

  it('§15.4.5: a 304 the origin sends unasked passes without a body', async () => {
    const path = fresh('unasked-304');
    origin.answer(path, { status: 304, headers: { etag: '"x"' } });
    const answer = await get(path);
    expect(answer.status).toBe(304);
    expect(answer.body.byteLength).toBe(0);
  });

  it('§15.2: interim 1xx answers before the final one do not break the exchange', async () => {
    const path = fresh('early-hints');
    origin.answer(path, {
      status: 200,
      interim: [{ status: 103, headers: { link: '</style.css>; rel=preload' } }],
      headers: { 'cache-control': 'max-age=60' },
      body: 'after hints',
    });
    const answer = await get(path);
    expect(answer.text).toBe('after hints');
    expect(answer.status).toBe(200);
  });

  it('§9.3.2: HEAD gets the status and headers GET would, without a body', async () => {
    const path = fresh('head-404');
    origin.answer(path, { status: 404, headers: { 'x-site': 'yes', 'content-type': 'text/html' }, body: 'page' });
    const head = await get(path, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.headers.get('x-site')).toBe('yes');
    expect(head.body.byteLength).toBe(0);
  });
});

describe('RFC 9111 §4.2.4 — stale only when allowed', () => {
  it('§4.2.4: with default settings, a stale response is not served while the origin answers', async () => {
    const path = fresh('no-stale');
    let version = 1;
    origin.answer(path, () => ({ status: 200, headers: { 'cache-control': 'max-age=1' }, body: `v${version}` }));
    expect((await get(path)).text).toBe('v1');
    await settle();
    clock.advance(5);
    version = 2;
    expect((await get(path)).text).toBe('v2');
  });

  it('RFC 5861 §3: stale-while-revalidate from the response is honoured', async () => {
    const path = fresh('swr');
    let version = 1;
    origin.answer(path, () => ({
      status: 200,
      headers: { 'cache-control': 'max-age=1, stale-while-revalidate=60' },
      body: `v${version}`,
    }));
    expect((await get(path)).text).toBe('v1');
    await settle();
    clock.advance(5);
    version = 2;
    expect((await get(path)).text).toBe('v1');
  });
});

describe('RFC 9111 §4.2.4 — stale when disconnected', () => {
  it('§4.2.4: with default settings, a stale copy stands in when the origin cannot be reached, for GET and HEAD', async () => {
    const path = fresh('disconnected');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=1' }, body: 'kept' });
    expect((await get(path)).text).toBe('kept');
    await settle();
    clock.advance(5);
    origin.answer(path, { status: 200, reset: true });
    const answer = await get(path);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('kept');
    expect(edgeOf(answer)).toContain('detail=stale-if-error');
    const head = await get(path, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('§4.2.4: at the shield too: its own stale copy stands in for GET when the origin cannot be reached and the edge holds none', async () => {
    const path = fresh('disconnected-at-shield');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=1' }, body: 'kept at the shield' });
    await get(path);
    await settle();
    // The edge forgets its copy: the edge misses, and asks the shield, which holds a stale one.
    const edgeCache = await (await stack.mf.getCaches()).open('tiercache-edge');
    expect(await edgeCache.delete(new URL(path, stack.url).href)).toBe(true);
    clock.advance(5);
    origin.answer(path, { status: 200, reset: true });
    const answer = await get(path);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('kept at the shield');
    const shield = cacheStatus(answer).find((m) => m[0] === 'tiercache-shield') ?? [];
    expect(shield).toEqual(expect.arrayContaining(['fwd=stale', 'detail=stale-if-error']));
    // No answer came from the origin: no fwd-status (RFC 9211 §2.3).
    expect(shield.some((part) => part.startsWith('fwd-status='))).toBe(false);
  });

  it('RFC 9211 §2.2: a stale copy standing in on HEAD is reported as forwarded (fwd=stale), as for GET, never as a hit', async () => {
    const path = fresh('disconnected-head');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=1' }, body: 'kept' });
    await get(path);
    await settle();
    clock.advance(5);
    origin.answer(path, { status: 200, reset: true });
    // HEAD at the edge goes to the shield as a HEAD, and the shield's stale copy answers it.
    const head = await get(path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const shield = cacheStatus(head).find((m) => m[0] === 'tiercache-shield') ?? [];
    expect(shield).toEqual(expect.arrayContaining(['fwd=stale', 'detail=stale-if-error']));
    expect(shield).not.toContain('hit');
  });

  it("§4.2.4: an origin's 500 is its answer: not hidden behind a stale copy unless stale-if-error allows it", async () => {
    const path = fresh('answered-500');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=1' }, body: 'old' });
    await get(path);
    await settle();
    clock.advance(5);
    origin.answer(path, { status: 500, headers: { 'content-type': 'text/plain' }, body: 'the site is broken' });
    const answer = await get(path);
    expect(answer.status).toBe(500);
    expect(answer.text).toBe('the site is broken');
  });

  it('§4.2.4: must-revalidate forbids the stale copy even when disconnected: 502 of ours, saying why', async () => {
    const path = fresh('must-revalidate');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=1, must-revalidate' }, body: 'strict' });
    await get(path);
    await settle();
    clock.advance(5);
    origin.answer(path, { status: 200, reset: true });
    const answer = await get(path);
    expect(answer.status).toBe(502);
    expect(cacheStatus(answer).find((m) => m[0] === 'tiercache-shield')).toContain('detail=origin-unreachable');
  });
});

describe('RFC 9111 §3.2 and §4.3.4 — a 304 updates the stored headers, at both tiers', () => {
  it('§4.3.4: a changed Cache-Control and a new header from a 304 reach the edge copy', async () => {
    const path = fresh('refresh');
    let step = 1;
    origin.answer(path, (r): Scripted => {
      if (step === 1)
        return {
          status: 200,
          headers: { 'cache-control': 'max-age=1', etag: '"v"', 'x-version': 'one' },
          body: 'body',
        };
      return r.headers['if-none-match'] === '"v"'
        ? { status: 304, headers: { 'cache-control': 'max-age=600', etag: '"v"', 'x-version': 'two' } }
        : { status: 200, headers: { 'cache-control': 'max-age=600', etag: '"v"' }, body: 'body' };
    });
    await get(path);
    await settle();
    clock.advance(5);
    step = 2;
    const refreshed = await get(path);
    expect(refreshed.text).toBe('body');
    expect(refreshed.headers.get('x-version')).toBe('two');
    await settle();
    const hit = await get(path);
    expect(edgeOf(hit)[1]).toBe('hit');
    expect(hit.headers.get('cache-control')).toBe('max-age=600');
    expect(hit.headers.get('x-version')).toBe('two');
    expect(origin.receivedFor(path).map((r) => r.headers['if-none-match'] ?? null)).toEqual([null, '"v"']);
  });
});

describe('RFC 9111 §5.2 — request directives', () => {
  it('§5.2.1.7: only-if-cached gets a 504 when nothing is stored, and the stored response when it is; never the origin', async () => {
    const path = fresh('only-if-cached');
    origin.answer(path, { status: 200, headers: { 'cache-control': 'max-age=600' }, body: 'stored' });
    const none = await get(path, { headers: { 'cache-control': 'only-if-cached' } });
    expect(none.status).toBe(504);
    expect(origin.receivedFor(path)).toHaveLength(0);
    await get(path);
    await settle();
    const stored = await get(path, { headers: { 'cache-control': 'only-if-cached' } });
    expect([stored.status, stored.text]).toEqual([200, 'stored']);
    expect(origin.receivedFor(path)).toHaveLength(1);
  });
});

describe('RFC 9111 §3 — what may be stored', () => {
  const storedOnce = async (path: string, init?: RequestInit): Promise<number> => {
    await get(path, init);
    await settle();
    await get(path, init);
    return origin.receivedFor(path).length;
  };

  it('§3: any final status with explicit freshness is stored (a 302 with max-age)', async () => {
    const path = fresh('redirect-fresh');
    origin.answer(path, { status: 302, headers: { location: '/x', 'cache-control': 'max-age=600' }, body: 'go' });
    expect(await storedOnce(path)).toBe(1);
  });

  it('§3: a 400, 500 or 599 with explicit freshness is stored and reused like a 200', async () => {
    for (const status of [400, 500, 599]) {
      const path = fresh(`stored-${status}`);
      origin.answer(path, { status, headers: { 'cache-control': 'max-age=600' }, body: `status ${status}` });
      expect(await storedOnce(path), String(status)).toBe(1);
      const hit = await get(path);
      expect([hit.status, hit.text, edgeOf(hit)[1]]).toEqual([status, `status ${status}`, 'hit']);
    }
  });

  it('§3.1: a stored 200 keeps every field the origin sent, a Content-Range of its own included', async () => {
    const path = fresh('own-content-range');
    origin.answer(path, {
      status: 200,
      headers: { 'cache-control': 'max-age=600', 'content-range': 'bytes 0-1/2' },
      body: 'ab',
    });
    await get(path);
    await settle();
    const hit = await get(path);
    expect([edgeOf(hit)[1], hit.headers.get('content-range')]).toEqual(['hit', 'bytes 0-1/2']);
  });

  it('§3, RFC 9110 §15.1: a 302 without explicit freshness is not heuristically cacheable', async () => {
    const path = fresh('redirect-plain');
    origin.answer(path, {
      status: 302,
      headers: { location: '/x', 'last-modified': new Date(Date.now() - 86_400_000).toUTCString() },
      body: 'go',
    });
    expect(await storedOnce(path)).toBe(2);
  });

  it('§4.2.2: a 301 with Last-Modified is fresh by heuristic', async () => {
    const path = fresh('moved-heuristic');
    origin.answer(path, {
      status: 301,
      headers: { location: '/x', 'last-modified': new Date(Date.now() - 10 * 86_400_000).toUTCString() },
      body: 'moved',
    });
    expect(await storedOnce(path)).toBe(1);
  });

  it('§3.5: a response to a request with Authorization is stored only when public, s-maxage or must-revalidate allows it', async () => {
    const plain = fresh('auth-plain');
    origin.answer(plain, { status: 200, headers: { 'cache-control': 'max-age=600' }, body: 'mine' });
    expect(await storedOnce(plain, { headers: { authorization: 'Bearer a' } })).toBe(2);
    const shared = fresh('auth-shared');
    origin.answer(shared, { status: 200, headers: { 'cache-control': 's-maxage=600' }, body: 'ours' });
    expect(await storedOnce(shared, { headers: { authorization: 'Bearer a' } })).toBe(1);
  });

  it('§5.2.2.7: private="field" stores the response without that field', async () => {
    const path = fresh('private-field');
    origin.answer(path, {
      status: 200,
      headers: { 'cache-control': 'max-age=600, private="x-user"', 'x-user': 'alice' },
      body: 'page',
    });
    const first = await get(path);
    expect(first.headers.get('x-user')).toBe('alice');
    await settle();
    const hit = await get(path);
    expect(edgeOf(hit)[1]).toBe('hit');
    expect(hit.headers.get('x-user')).toBeNull();
  });
});

describe('RFC 9213 — targeted cache control', () => {
  it('§2.2: CDN-Cache-Control gives the CDN its own lifetime over Cache-Control, and is passed on', async () => {
    const path = fresh('cdn-cc');
    origin.answer(path, {
      status: 200,
      headers: { 'cache-control': 'no-store', 'cdn-cache-control': 'max-age=600' },
      body: 'cdn',
    });
    await get(path);
    await settle();
    const hit = await get(path);
    expect(edgeOf(hit)[1]).toBe('hit');
    expect(hit.headers.get('cdn-cache-control')).toBe('max-age=600');
    expect(hit.headers.get('cache-control')).toBe('no-store');
    expect(origin.receivedFor(path)).toHaveLength(1);
  });

  it('§2.1, RFC 9651 §4.2.7: a CDN-Cache-Control whose byte sequence has "=" in its middle is ignored whole: Cache-Control decides', async () => {
    const path = fresh('cdn-cc-bad-binary');
    origin.answer(path, {
      status: 200,
      headers: { 'cache-control': 'no-store', 'cdn-cache-control': 'max-age=600, k=:a=GVsbG8=:' },
      body: 'not for keeping',
    });
    const first = await get(path);
    await settle();
    const second = await get(path);
    expect([first.status, first.text, second.status, second.text]).toEqual([
      200,
      'not for keeping',
      200,
      'not for keeping',
    ]);
    expect(edgeOf(second)[1]).not.toBe('hit');
    expect(origin.receivedFor(path)).toHaveLength(2);
  });

  it('§2.2: Tiercache-Cache-Control comes first, and never reaches the client', async () => {
    const path = fresh('tiercache-cc');
    origin.answer(path, {
      status: 200,
      headers: {
        'cache-control': 'max-age=600',
        'cdn-cache-control': 'max-age=600',
        'tiercache-cache-control': 'no-store',
      },
      body: 'ours',
    });
    const first = await get(path);
    expect(first.headers.get('tiercache-cache-control')).toBeNull();
    await settle();
    await get(path);
    expect(origin.receivedFor(path)).toHaveLength(2);
  });
});

describe('RFC 9110 §13 and §14 — validators and ranges for every stored response', () => {
  it('§13.2.2, §14.2: a response stored without Content-Length answers If-None-Match and Range on hits', async () => {
    const path = fresh('chunked');
    origin.answer(path, {
      status: 200,
      headers: { 'cache-control': 'max-age=600', etag: '"c"', 'transfer-encoding': 'chunked' },
      body: '0123456789',
    });
    expect((await get(path)).text).toBe('0123456789');
    await settle();
    const range = await get(path, { headers: { range: 'bytes=2-5' } });
    expect([range.status, range.text, range.headers.get('content-range')]).toEqual([206, '2345', 'bytes 2-5/10']);
    const notModified = await get(path, { headers: { 'if-none-match': '"c"' } });
    expect(notModified.status).toBe(304);
    const failed = await get(path, { headers: { 'if-match': '"other"' } });
    expect(failed.status).toBe(412);
    expect(origin.receivedFor(path)).toHaveLength(1);
  });

  it('§13.2.2: on a miss too, a response without Content-Length answers the conditions', async () => {
    const path = fresh('chunked-miss');
    origin.answer(path, {
      status: 200,
      headers: { 'cache-control': 'max-age=600', etag: '"m"', 'transfer-encoding': 'chunked' },
      body: 'abc',
    });
    expect((await get(path, { headers: { 'if-none-match': '"m"' } })).status).toBe(304);
  });

  it('§14.4: a small object from a site that serves ranges is a 200 without Content-Range; §15.3.7.2: its multipart 206 has none at the top', async () => {
    const path = fresh('small-ranged');
    const body = 'abcdefghijklmnopqrstuvwxyz';
    origin.answer(path, (r): Scripted => {
      const m = /^bytes=(\d+)-(\d+)$/.exec(r.headers.range ?? '');
      if (m === null) return { status: 200, headers: { 'cache-control': 'max-age=600', etag: '"s"' }, body };
      const end = Math.min(Number(m[2]), body.length - 1);
      return {
        status: 206,
        headers: {
          'cache-control': 'max-age=600',
          etag: '"s"',
          'content-range': `bytes ${m[1]}-${end}/${body.length}`,
        },
        body: body.slice(Number(m[1]), end + 1),
      };
    });
    const whole = await get(path);
    expect([whole.status, whole.text, whole.headers.get('content-range')]).toEqual([200, body, null]);
    await settle();
    const hit = await get(path);
    expect(hit.headers.get('content-range')).toBeNull();
    const multipart = await get(path, { headers: { range: 'bytes=0-1, 4-5' } });
    expect(multipart.status).toBe(206);
    expect(multipart.headers.get('content-type')).toMatch(/^multipart\/byteranges/);
    expect(multipart.headers.get('content-range')).toBeNull();
  });
});

describe('RFC 9110 §9 — methods', () => {
  it('§9.1: an extension method reaches the origin and is answered as the origin answered (PROPFIND, REPORT)', async () => {
    for (const method of ['PROPFIND', 'REPORT']) {
      const path = fresh(`extension-${method}`);
      origin.answer(path, (r) => ({ status: 207, headers: { 'content-type': 'text/plain' }, body: `${r.method} ok` }));
      const answer = await get(path, { method });
      expect([answer.status, answer.text]).toEqual([207, `${method} ok`]);
      expect(origin.receivedFor(path).map((r) => r.method)).toEqual([method]);
    }
  });
});

describe('RFC 9111 §4.2 — freshness and age', () => {
  const askedTwice = async (headers: Record<string, string>): Promise<number> => {
    const path = fresh('freshness');
    origin.answer(path, { status: 200, headers, body: 'x' });
    await get(path);
    await settle();
    await get(path);
    return origin.receivedFor(path).length;
  };

  it('§4.2.3: the Age the origin sent counts: max-age=60 with Age: 100 is stale on arrival', async () => {
    expect(await askedTwice({ 'cache-control': 'max-age=60', age: '100' })).toBe(2);
    expect(await askedTwice({ 'cache-control': 'max-age=600', age: '100' })).toBe(1);
  });

  it('§4.2.3: Age reaches the client as the sum of both tiers and the origin', async () => {
    const path = fresh('age-sum');
    // The origin's clock agrees with the tiers' (moved by earlier tests): only Age counts.
    origin.answer(path, () => ({
      status: 200,
      headers: { 'cache-control': 'max-age=600', age: '30', date: new Date(clock.now()).toUTCString() },
      body: 'x',
    }));
    await get(path);
    await settle();
    clock.advance(10);
    const hit = await get(path);
    expect(Number(hit.headers.get('age'))).toBeGreaterThanOrEqual(40);
    expect(Number(hit.headers.get('age'))).toBeLessThan(45);
  });

  it('§5.3: an invalid Expires is already expired; §4.2.1: an invalid max-age makes the response stale', async () => {
    expect(await askedTwice({ expires: '0' })).toBe(2);
    expect(await askedTwice({ expires: 'not a date' })).toBe(2);
    expect(
      await askedTwice({ 'cache-control': 'max-age=abc', expires: new Date(Date.now() + 3_600_000).toUTCString() }),
    ).toBe(2);
  });

  it('§4.2.1: Expires minus Date is the lifetime', async () => {
    const now = clock.now();
    expect(
      await askedTwice({ date: new Date(now).toUTCString(), expires: new Date(now + 600_000).toUTCString() }),
    ).toBe(1);
  });
});
