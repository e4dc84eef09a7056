import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, rawGet, request, SHIELD_TOKEN, startFixture } from './fixture.ts';

let f: Fixture;

/** Object key → the spellings a client may use for it. */
const KEYS: Record<string, string[]> = {
  'my file.txt': ['/my%20file.txt'],
  'café/menü.txt': ['/caf%C3%A9/men%C3%BC.txt', '/café/menü.txt'],
  '日本語.txt': ['/%E6%97%A5%E6%9C%AC%E8%AA%9E.txt'],
  'a+b.txt': ['/a+b.txt', '/a%2Bb.txt'],
  '~tilde.txt': ['/~tilde.txt', '/%7Etilde.txt'],
  'bang!.txt': ['/bang!.txt', '/bang%21.txt'],
  "it's (really) *here*.txt": ["/it's%20(really)%20*here*.txt", '/it%27s%20%28really%29%20%2Ahere%2A.txt'],
  'dir/slash.txt': ['/dir%2Fslash.txt', '/dir/slash.txt'],
  '100%.txt': ['/100%25.txt'],
};

beforeAll(async () => {
  f = await startFixture();
  for (const key of Object.keys(KEYS)) await f.origin.putObject(key, `body of ${key}`);
  await f.origin.putObject('index.html', '<h1>index</h1>', { 'content-type': 'text/html' });
  await f.origin.putObject('secret.txt', 'not to be reached through ..');
});
afterAll(() => f?.close());

describe('an S3 origin', () => {
  for (const [key, spellings] of Object.entries(KEYS)) {
    it(`fetches the key ${JSON.stringify(key)} under every spelling, signed as the server expects`, async () => {
      for (const path of spellings) {
        const answer = await f.get(path);
        expect(answer.status, path).toBe(200);
        expect(answer.text).toBe(`body of ${key}`);
      }
    });
  }

  it('sends the key to the origin in S3 UriEncode form', async () => {
    f.tap.clear();
    await f.get('/%E6%97%A5%E6%9C%AC%E8%AA%9E.txt');
    await f.get("/it's%20(really)%20*here*.txt");
    const paths = f.tap.requests.map((r) => r.path);
    for (const path of paths) expect(path).toMatch(/^\/assets\/[A-Za-z0-9\-._~/%]+$/);
  });

  it('never lets dot segments escape the key space', async () => {
    f.tap.clear();
    expect((await f.get('/a%2F..%2Fsecret.txt')).status).toBe(400);
    expect((await f.get('/..%2F..%2Fother-bucket%2Fkey')).status).toBe(400);
    expect((await f.get('/%2E%2E%2Fsecret.txt')).status).toBe(400);
    expect(f.tap.requests).toHaveLength(0);
  });

  it('rejects malformed percent-encoding with 400 and a plain message', async () => {
    const answer = await f.get('/bad%ZZ.txt');
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await f.get('/bad%FF.txt')).status).toBe(400);
  });

  it('never lists the bucket', async () => {
    f.tap.clear();
    expect((await f.get('/')).status).toBe(404);
    expect((await f.get('/?list-type=2')).status).toBe(404);
    expect(f.tap.requests).toHaveLength(0);
  });

  it('answers 404 for a missing object', async () => {
    const answer = await f.get('/no/such/object.txt');
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('<');
  });

  for (const method of ['PUT', 'DELETE', 'POST', 'PATCH']) {
    it(`refuses ${method} with 405 and Allow, and never forwards it`, async () => {
      f.tap.clear();
      const answer = await f.get('/index.html', { method, body: method === 'DELETE' ? null : 'payload' });
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(f.tap.requests).toHaveLength(0);
      expect((await f.get('/index.html')).text).toBe('<h1>index</h1>');
    });
  }

  it('answers OPTIONS with the allowed methods', async () => {
    const answer = await f.get('/index.html', { method: 'OPTIONS' });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('never forwards client credentials, cookies, x-amz-* headers or the query string', async () => {
    await f.origin.putObject('private-check.txt', 'x');
    f.tap.clear();
    const answer = await rawGet(
      new URL('/private-check.txt?list-type=2&acl&versions&uploads&X-Amz-Credential=evil', f.stack.url),
      {
        authorization: 'Bearer client-secret',
        cookie: 'session=client-cookie',
        'x-amz-security-token': 'client-token',
        'x-amz-acl': 'public-read-write',
        'x-tiercache-credential': 'forged',
        'proxy-authorization': 'Basic abc',
        connection: 'keep-alive, x-secret',
        'x-secret': 'hop',
      },
    );
    expect(answer.status).toBe(200);
    expect(f.tap.requests).toHaveLength(1);
    const sent = f.tap.requests[0]!;
    expect(sent.path).toBe('/assets/private-check.txt');
    expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=S3RVER\//);
    expect(JSON.stringify(sent.headers)).not.toMatch(
      /client-secret|client-cookie|client-token|public-read-write|forged|Basic abc|hop/,
    );
    expect(
      Object.keys(sent.headers)
        .filter((h) => h.startsWith('x-amz-'))
        .sort(),
    ).toEqual(['x-amz-content-sha256', 'x-amz-date']);
    expect(sent.headers.cookie).toBeUndefined();
  });

  it('serves one cache entry whatever query string a client adds', async () => {
    await f.origin.putObject('busted.js', 'v1');
    f.tap.clear();
    await f.get('/busted.js?v=1');
    await new Promise((resolve) => setTimeout(resolve, 150));
    await f.get('/busted.js?v=2');
    await f.get('/busted.js?cachebuster=123');
    expect(f.tap.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });
});

describe('the shield', () => {
  it('refuses requests that do not carry the edge credential', async () => {
    f.tap.clear();
    expect((await request(new URL('/index.html', f.stack.shieldUrl))).status).toBe(403);
    const forged = await request(new URL('/index.html', f.stack.shieldUrl), {
      headers: { 'x-tiercache-credential': 'guess' },
    });
    expect(forged.status).toBe(403);
    expect(forged.text).not.toContain(SHIELD_TOKEN);
    expect(f.tap.requests).toHaveLength(0);
  });

  it('answers the edge credential', async () => {
    const answer = await request(new URL('/index.html', f.stack.shieldUrl), {
      headers: { 'x-tiercache-credential': SHIELD_TOKEN },
    });
    expect(answer.status).toBe(200);
  });
});
