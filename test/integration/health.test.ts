// GET /__tiercache/health through the real workers (docs/operating.md): it says
// whether the origin serves with the configured credentials, from a HEAD of one object (never
// a bucket-level request), kept for a few seconds per isolate: 200 `ok` against a good origin,
// 503 with the named state for a wrong secret, a missing bucket, a stopped or a silent origin
// and a failing site; never cached, and asked of the origin at most once per window.

import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { CREDENTIAL_HEADER } from '../../shared/hop/hop-fields.ts';
import { HEALTH_CACHE_MS } from '../../shared/http/health-report.ts';
import { HEALTH_PATH } from '../../shared/request/reserved-paths.ts';
import { DEFAULT_PROBE_KEY } from '../../shield/origin/probe-target.ts';
import type { RecordedRequest } from '../local/origin-tap.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { type Answer, FakeClock, type Fixture, request, SHIELD_TOKEN, startFixture } from './fixture.ts';

const HEALTH_KEY = 'health/ok.txt';
/** Past the window in which one probe's finding answers. */
const PAST_WINDOW_S = HEALTH_CACHE_MS / 1000 + 1;

interface Health {
  status: string;
  shield: string;
  origin: string;
  originDetail: string;
  probe?: string;
}

async function health(url: string, init?: RequestInit): Promise<{ answer: Answer; body: Health }> {
  const answer = await request(new URL(HEALTH_PATH, url), init);
  return { answer, body: JSON.parse(answer.text) as Health };
}

function expectHealth(got: { answer: Answer; body: Health }, status: 200 | 503, origin: string): void {
  expect([got.answer.status, got.body.origin], got.body.originDetail).toEqual([status, origin]);
  expect(got.body.status).toBe(status === 200 ? 'ok' : 'failing');
  expect(got.body.shield).toBe('ok');
  expect(got.answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(got.answer.headers.get('cache-control')).toBe('no-store');
  expect(got.answer.headers.get('age')).toBeNull();
  expect(got.answer.headers.get('cache-status')).toBeNull();
}

/** Every request the origin received names one object: no `GET /bucket`, `/bucket/`, no query (`?list-type=2`). */
function expectObjectRequestsOnly(requests: readonly RecordedRequest[], bucket: string): void {
  expect(requests.length).toBeGreaterThan(0);
  for (const { method, path } of requests) {
    expect(['GET', 'HEAD'], `${method} ${path}`).toContain(method);
    expect(path, `${method} ${path}`).not.toContain('?');
    expect(path, `${method} ${path}`).toMatch(new RegExp(`^/${bucket}/[^/]`));
  }
}

const heads = (requests: readonly RecordedRequest[], path: string): number =>
  requests.filter((r) => r.method === 'HEAD' && r.path === path).length;

describe('health against a good origin with HEALTH_KEY', () => {
  const clock = new FakeClock();
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ HEALTH_KEY: `/${HEALTH_KEY}` }, { clock });
    await f.origin.putObject(HEALTH_KEY, 'ok\n', { 'content-type': 'text/plain' });
  });
  afterAll(() => f?.close());

  it('is 200 with origin ok, from one HEAD of the configured key', async () => {
    f.tap.clear();
    const got = await health(f.stack.url);
    expectHealth(got, 200, 'ok');
    expect(got.body.probe).toBe('HEALTH_KEY');
    expect(got.body.originDetail).toMatch(/answered 200/);
    expect(f.tap.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `HEAD /${f.origin.bucket}/${HEALTH_KEY} 200`,
    ]);
    expect(f.tap.requests[0]?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('asks the origin at most once per window however many health requests come, one after another or together', async () => {
    clock.advance(PAST_WINDOW_S);
    f.tap.clear();
    for (let i = 0; i < 3; i++) expectHealth(await health(f.stack.url), 200, 'ok');
    const together = await Promise.all([0, 1, 2, 3].map(() => health(f.stack.url)));
    for (const got of together) expectHealth(got, 200, 'ok');
    expect(heads(f.tap.requests, `/${f.origin.bucket}/${HEALTH_KEY}`)).toBe(1);
    expect(f.tap.requests).toHaveLength(1);
    // Past the window, the next one asks again: a finding is never kept longer.
    clock.advance(PAST_WINDOW_S);
    expectHealth(await health(f.stack.url), 200, 'ok');
    expect(heads(f.tap.requests, `/${f.origin.bucket}/${HEALTH_KEY}`)).toBe(2);
    expectObjectRequestsOnly(f.tap.requests, f.origin.bucket);
  });

  it("is the shield's own answer too: 200 with the finding, for the edge's credential only", async () => {
    const own = await health(f.stack.shieldUrl, { headers: { [CREDENTIAL_HEADER]: SHIELD_TOKEN } });
    expect([own.answer.status, own.body.origin, own.answer.headers.get('cache-control')]).toEqual([
      200,
      'ok',
      'no-store',
    ]);
    expect((await request(new URL(HEALTH_PATH, f.stack.shieldUrl))).status).toBe(403);
  });

  it('says how each tier read the purge list: read, by both', async () => {
    const body = JSON.parse((await request(new URL(HEALTH_PATH, f.stack.url))).text) as {
      purgeList?: { edge?: { state: string }; shield?: { state: string } };
    };
    expect(body.purgeList).toMatchObject({ edge: { state: 'read' }, shield: { state: 'read' } });
  });

  it('says where each tier ran (colo): the edge its own and the shield\'s, the shield its own; "local" here, where the platform names none', async () => {
    const body = JSON.parse((await request(new URL(HEALTH_PATH, f.stack.url))).text) as Record<string, unknown>;
    expect([body.colo, body.shieldColo]).toEqual(['local', 'local']);
    const own = await request(new URL(HEALTH_PATH, f.stack.shieldUrl), {
      headers: { [CREDENTIAL_HEADER]: SHIELD_TOKEN },
    });
    expect((JSON.parse(own.text) as Record<string, unknown>).colo).toBe('local');
  });

  it('HEAD tells the same by its status, without a body', async () => {
    const head = await request(new URL(HEALTH_PATH, f.stack.url), { method: 'HEAD' });
    expect([head.status, head.body.byteLength, head.headers.get('cache-control')]).toEqual([200, 0, 'no-store']);
  });

  it('is 503 with origin unreachable once the origin is stopped (the finding before it is not kept past its window)', async () => {
    await f.tap.close();
    clock.advance(PAST_WINDOW_S);
    const got = await health(f.stack.url);
    expectHealth(got, 503, 'unreachable');
    expect(got.body.originDetail).toMatch(/ORIGIN_URL/);
    const head = await request(new URL(HEALTH_PATH, f.stack.url), { method: 'HEAD' });
    expect([head.status, head.body.byteLength]).toEqual([503, 0]);
  });
});

describe('health against a good origin without HEALTH_KEY', () => {
  const clock = new FakeClock();
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({}, { clock });
    await f.origin.putObject('served.txt', 'served\n', { 'content-type': 'text/plain' });
  });
  afterAll(() => f?.close());

  it('before anything was served, probes a key that names no object: NoSuchKey proves bucket and credentials, 200 ok', async () => {
    f.tap.clear();
    const got = await health(f.stack.url);
    expectHealth(got, 200, 'ok');
    expect(got.body.probe).toBe('default');
    expect(got.body.originDetail).toMatch(/NoSuchKey/);
    const path = `/${f.origin.bucket}/${DEFAULT_PROBE_KEY}`;
    // A HEAD has no body to name the cause; the GET after it reads S3's error code.
    expect(f.tap.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `HEAD ${path} 404`,
      `GET ${path} 404`,
    ]);
    expect(f.tap.requests[1]?.headers.range).toBe('bytes=0-0');
  });

  it('once an object was served from the origin, probes that object', async () => {
    expect((await f.get('/served.txt')).status).toBe(200);
    clock.advance(PAST_WINDOW_S);
    f.tap.clear();
    const got = await health(f.stack.url);
    expectHealth(got, 200, 'ok');
    expect(got.body.probe).toBe('recent');
    expect(f.tap.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `HEAD /${f.origin.bucket}/served.txt 200`,
    ]);
  });
});

describe('health against an origin that cannot serve', () => {
  let wrongSecret: Fixture;
  let wrongKeyId: Fixture;
  let noBucket: Fixture;
  beforeAll(async () => {
    [wrongSecret, wrongKeyId, noBucket] = await Promise.all([
      startFixture({ S3_SECRET_ACCESS_KEY: 'not-the-secret', HEALTH_KEY }),
      startFixture({ S3_ACCESS_KEY_ID: 'AKIDNOTKNOWNHERE', HEALTH_KEY }),
      startFixture({ S3_BUCKET: 'no-such-bucket-here', HEALTH_KEY }),
    ]);
    await wrongSecret.origin.putObject(HEALTH_KEY, 'ok\n');
  });
  afterAll(() => Promise.all([wrongSecret?.close(), wrongKeyId?.close(), noBucket?.close()]));

  it('a wrong secret: 503, origin credentials, naming S3_SECRET_ACCESS_KEY, from object requests only', async () => {
    const got = await health(wrongSecret.stack.url);
    expectHealth(got, 503, 'credentials');
    expect(got.body.originDetail).toMatch(/SignatureDoesNotMatch.*S3_SECRET_ACCESS_KEY/);
    expect(got.body.originDetail).not.toContain('not-the-secret');
    expectObjectRequestsOnly(wrongSecret.tap.requests, wrongSecret.origin.bucket);
    expect(wrongSecret.tap.requests.map((r) => r.status)).toEqual([403, 403]);
  });

  it('an access key id the origin does not know: 503, origin credentials, naming S3_ACCESS_KEY_ID', async () => {
    const got = await health(wrongKeyId.stack.url);
    expectHealth(got, 503, 'credentials');
    expect(got.body.originDetail).toMatch(/InvalidAccessKeyId.*S3_ACCESS_KEY_ID/);
    expect(got.body.originDetail).not.toContain('AKIDNOTKNOWNHERE');
    expectObjectRequestsOnly(wrongKeyId.tap.requests, wrongKeyId.origin.bucket);
  });

  it('a missing bucket: 503, origin no-such-bucket, naming S3_BUCKET, from object requests only', async () => {
    const got = await health(noBucket.stack.url);
    expectHealth(got, 503, 'no-such-bucket');
    expect(got.body.originDetail).toMatch(/NoSuchBucket.*S3_BUCKET/);
    expect(got.body.originDetail).not.toContain('no-such-bucket-here');
    expectObjectRequestsOnly(noBucket.tap.requests, 'no-such-bucket-here');
  });
});

/** A TCP server that accepts connections and never says anything. */
async function startSilentOrigin(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('health against a silent origin and a site', () => {
  let silent: { url: string; close(): Promise<void> };
  let silentStack: Stack;
  let site: AnyOrigin;
  let siteStack: Stack;
  const clock = new FakeClock();
  beforeAll(async () => {
    [silent, site] = await Promise.all([startSilentOrigin(), startAnyOrigin()]);
    [silentStack, siteStack] = await Promise.all([
      startWorkers({
        config: {
          ORIGIN_KIND: 's3',
          ORIGIN_URL: silent.url,
          S3_BUCKET: 'bucket',
          S3_ACCESS_KEY_ID: 'k',
          S3_SECRET_ACCESS_KEY: 's',
          SHIELD_TOKEN,
          ORIGIN_TIMEOUT_MS: '300',
        },
      }),
      startWorkers({
        config: { ORIGIN_KIND: 'http', ORIGIN_URL: `${site.url}/base/`, SHIELD_TOKEN },
        clock: clock.now,
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([silentStack?.dispose(), siteStack?.dispose()]);
    await Promise.all([silent?.close(), site?.close()]);
  });

  it('an origin that accepts the connection and never answers: 503, origin timeout', async () => {
    const got = await health(silentStack.url);
    expectHealth(got, 503, 'timeout');
    expect(got.body.originDetail).toMatch(/did not answer within 300 ms/);
  });

  it('a site: any answer below 500 is ok (its 404 too), a 5xx is 503 error; the probe is a HEAD of its root', async () => {
    site.answer('/base/', { status: 404, body: 'not here' });
    expectHealth(await health(siteStack.url), 200, 'ok');
    site.answer('/base/', { status: 502, body: 'down' });
    clock.advance(PAST_WINDOW_S);
    const failing = await health(siteStack.url);
    expectHealth(failing, 503, 'error');
    expect(failing.body.originDetail).toMatch(/502/);
    expect(site.received.map((r) => `${r.method} ${r.path}`)).toEqual(['HEAD /base/', 'HEAD /base/']);
  });
});
