// Requests a client should not send, sent over a raw socket to the local stack as it runs for
// `npm start` (the local front on the printed port, as Cloudflare's front end stands before a
// Worker in production): each gets one short answer of ours, a 4xx where the request is at
// fault, never a 500; a smuggled second request never reaches the origin; and no spelling of
// a path reaches the tiers' own endpoints, in either origin mode.

import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers, type WorkerdSocket } from '../../local/workers.ts';
import { type Fixture, rawRequest, SHIELD_TOKEN, settle, startFixture } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

interface RawExchange {
  /** Every status line answered on the connection, in order. */
  statuses: number[];
  /** The body of the first answer. */
  body: string;
  /** The front closed the connection (rather than the test giving up waiting). */
  closed: boolean;
  /** Everything that arrived, as Latin-1. */
  text: string;
}

function exchange(base: string, raw: string, waitMs = 1500): Promise<RawExchange> {
  const url = new URL(base);
  return socketExchange({ host: url.hostname, port: Number(url.port) }, raw, waitMs);
}

/** An exchange with a socket given by its address: TCP, or a Unix socket's path (or the URL of a TCP one). */
function socketExchange(
  address: WorkerdSocket | { host: string; port: number },
  raw: string,
  waitMs = 1500,
): Promise<RawExchange> {
  const target =
    'url' in address ? { host: new URL(address.url).hostname, port: Number(new URL(address.url).port) } : address;
  return new Promise((resolve) => {
    const socket = connect(target, () => socket.write(raw));
    let data = Buffer.alloc(0);
    let closed = false;
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = data.toString('latin1');
      const statuses = [...text.matchAll(/(?:^|\r\n)HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ statuses, body: text.split('\r\n\r\n')[1] ?? '', closed, text });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk) => (data = Buffer.concat([data, chunk])));
    socket.on('end', () => {
      closed = true;
      done();
    });
    socket.on('error', done);
  });
}

/**
 * Hostile requests (malformed or ambiguous hosts and targets, CONNECT, framing that could smuggle a request:
 * conflicting or malformed lengths, bare LFs, malformed chunks), each with the answer it must get.
 */
const HOSTILE: [string, string, number][] = [
  ['two Host headers', 'GET /index.html HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400],
  ['a Host with userinfo', 'GET /index.html HTTP/1.1\r\nHost: user@host\r\n\r\n', 400],
  ['a Host with port 99999', 'GET /index.html HTTP/1.1\r\nHost: host:99999\r\n\r\n', 400],
  ['a Host with two ports', 'GET /index.html HTTP/1.1\r\nHost: host:80:80\r\n\r\n', 400],
  ['8 KB of junk as the Host', `GET /index.html HTTP/1.1\r\nHost: ${'x%'.repeat(4096)}\r\n\r\n`, 400],
  ['no Host', 'GET /index.html HTTP/1.1\r\n\r\n', 400],
  ['the asterisk form with GET', 'GET * HTTP/1.1\r\nHost: a\r\n\r\n', 400],
  ['a target without a leading slash', 'GET index.html HTTP/1.1\r\nHost: a\r\n\r\n', 400],
  ['CONNECT', 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n', 405],
  [
    'Transfer-Encoding with Content-Length',
    'POST /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
    400,
  ],
  [
    'two different Content-Lengths',
    'POST /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
    400,
  ],
  ['Content-Length: abc', 'POST /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n', 400],
  ['Content-Length: -1', 'POST /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n', 400],
  ['Content-Length: +5', 'POST /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello', 400],
  ['Content-Length in hex', 'POST /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhello', 400],
  // RFC 9112 §2.2 lets a recipient read a bare LF as a line end; the front refuses it instead, and answers.
  ['a head whose lines end in a bare LF', 'GET /index.html HTTP/1.1\nHost: a\n\n', 400],
  ['a head with one bare LF among its CRLFs', 'GET /index.html HTTP/1.1\r\nHost: a\n\r\n', 400],
  // RFC 9112 §7.1: chunk-size is 1*HEXDIG, then at most BWS ";" extensions, then CRLF.
  [
    'a chunk-size line with trailing whitespace',
    'POST /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n',
    400,
  ],
  [
    'a chunk-size line ending in a bare LF',
    'POST /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n',
    400,
  ],
  [
    'a chunk-size that is not hex',
    'POST /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
    400,
  ],
  [
    'chunk data not followed by CRLF',
    'POST /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n',
    400,
  ],
];

/** How long the front of the http-origin stack below waits for a head (the default is FRONT_HEAD_TIMEOUT_MS). */
const SHORT_HEAD_TIMEOUT_MS = 1000;

/** Targets that are odd but are requests for objects: answered as such (a 404 here), never a 500. */
const ODD_TARGETS = ['//', '///', '//host/x', '/\\host/x', '/%2f%2fhost/x'];

/** Every spelling of a way into the internal purge endpoint through an object path. */
const PURGE_SPELLINGS = [
  '/__tiercache/x/%2e%2e/purge',
  '/__tiercache/x/%2E%2E/purge',
  '/__tiercache/x/.%2e/purge',
  '/__tiercache/x/%2e./purge',
  '/__tiercache%2fpurge',
  '/__tiercache%2Fx%2F..%2Fpurge',
  '/__tiercache/x/..\\purge',
  '/x/%2e%2e/__tiercache/purge',
  '/%5f_tiercache/purge',
];

/**
 * Ways into the prefix that the URL parser leaves alone but an origin that decodes `%2F`/`%5C`
 * (or decodes twice, or merges slashes) and removes dot segments (RFC 3986 §5.2.4) reads as
 * its own `/__tiercache/purge`.
 */
const CLIMBING_SPELLINGS = [
  '/x/..%2F__tiercache/purge',
  '/x/..%2f__tiercache/purge',
  '/x/%2E%2e%2F__tiercache/purge',
  '/x/..%5C__tiercache/purge',
  '/x/..%5c__tiercache%5Cpurge',
  '/x%2F..%2F__tiercache/purge',
  '/x/..%252F__tiercache/purge',
  '//__tiercache/purge',
  '/x/..;/__tiercache/purge',
];

/**
 * The prefix in other cases: a case-insensitive origin (IIS, a Windows or macOS file system) reads each as the tiers'
 * own path, so none is an object or forwarded, and none is an endpoint either (those answer their exact path only).
 */
const CASE_SPELLINGS = [
  '/__TIERCACHE/purge',
  '/__TierCache/stats',
  '/__Tiercache/stats.json',
  '/__TIERCACHE/health',
  '/__TIERCACHE%2Fpurge',
  '/x/..%2F__TIERCACHE/purge',
];

function smuggle(second: string): string {
  const follow = `GET ${second} HTTP/1.1\r\nHost: a\r\n\r\n`;
  return `GET /index.html HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: ${5 + follow.length}\r\n\r\n0\r\n\r\n${follow}`;
}

function expectOursAndShort(answer: RawExchange, label: string): void {
  expect(answer.statuses, label).toHaveLength(1);
  expect(answer.statuses[0], label).toBeLessThan(500);
  expect(answer.body.length, label).toBeLessThan(300);
}

describe('hostile requests, s3 origin', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture({ PURGE_TOKEN: 'purge-secret' }, { front: true });
    await f.origin.putObject('index.html', '<p>hello</p>', { 'content-type': 'text/html' });
  });
  afterAll(() => f?.close());

  // First in the file: the odd targets below send `//` and `///` too, and on the code before
  // the fix their 404s were stored, so a later request would not have reached S3 anyway.
  it('a path of only slashes is the bucket, never an object: 404, and nothing is signed or sent to S3', async () => {
    f.tap.clear();
    for (const target of ['//', '///', '/%2F', '/%2f%2F']) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await exchange(
          f.stack.url,
          `${method} ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
        );
        expect(answer.statuses, `${method} ${target}`).toEqual([404]);
      }
    }
    await settle();
    expect(f.tap.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('a key that climbs with backslashes is refused with 400, and nothing is sent to S3', async () => {
    f.tap.clear();
    for (const target of ['/..%5C..%5Cetc%5Cpasswd', '/a%5c..%5c..%5cb', '/x/..%5Cindex.html']) {
      const answer = await exchange(f.stack.url, `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
      expect(answer.statuses, target).toEqual([400]);
    }
    await settle();
    expect(f.tap.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  for (const [name, raw, status] of HOSTILE) {
    it(`${name}: ${status} with a short body, and the connection closed`, async () => {
      const answer = await exchange(f.stack.url, raw);
      expectOursAndShort(answer, name);
      expect(answer.statuses[0]).toBe(status);
      expect(answer.closed).toBe(true);
    });
  }

  it('odd targets are requests for objects: an answer of ours, never a 500', async () => {
    for (const target of ODD_TARGETS) {
      const answer = await exchange(f.stack.url, `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
      expectOursAndShort(answer, target);
      expect(answer.statuses[0], target).toBeGreaterThanOrEqual(400);
    }
  });

  it('the absolute form is taken as RFC 9112 §3.2.2 says (its authority the host); OPTIONS * is answered for the server', async () => {
    const absolute = await exchange(
      f.stack.url,
      'GET http://cdn.example/index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    expect(absolute.statuses).toEqual([200]);
    const options = await exchange(f.stack.url, 'OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(options.statuses).toEqual([204]);
    expect(options.closed).toBe(true);
  });

  it('a request smuggled behind Transfer-Encoding and Content-Length gets one answer, and never reaches the origin', async () => {
    f.tap.clear();
    const answer = await exchange(f.stack.url, smuggle('/smuggled.html'));
    expect(answer.statuses).toEqual([400]);
    await settle();
    expect(f.tap.requests.filter((r) => r.path.includes('smuggled'))).toEqual([]);
  });

  it('no spelling of a path reaches the purge endpoint without the token, and nothing is purged', async () => {
    await rawRequest(new URL('/index.html', f.stack.url));
    await settle();
    for (const path of [...PURGE_SPELLINGS, ...CLIMBING_SPELLINGS]) {
      const answer = await exchange(
        f.stack.url,
        `POST ${path} HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expectOursAndShort(answer, path);
      expect([401, 404, 405], path).toContain(answer.statuses[0]);
    }
    // The shield still holds it: a host the edge has nothing for is answered there, no origin asked.
    f.tap.clear();
    const again = await rawRequest(new URL('/index.html', f.stack.url), { host: 'another.test' });
    expect(again.headers.get('cache-status')).toMatch(/tiercache-shield; hit/);
    expect(f.tap.requests).toEqual([]);
  });

  it('the prefix in any case is the tiers’: 404, never an object, nothing asked of S3', async () => {
    await f.origin.putObject('__TIERCACHE/purge', 'an object of that name', { 'content-type': 'text/plain' });
    f.tap.clear();
    for (const path of CASE_SPELLINGS) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const answer = await exchange(
          f.stack.url,
          `${method} ${path} HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        expectOursAndShort(answer, `${method} ${path}`);
        expect(answer.statuses, `${method} ${path}`).toEqual([404]);
      }
    }
    await settle();
    expect(f.tap.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it("only the printed port serves: the edge's own socket and the shield refuse object requests", async () => {
    const direct = await socketExchange(
      f.stack.edgeSocket,
      'GET /index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    expect(direct.statuses).toEqual([403]);
    const shield = await rawRequest(new URL('/index.html', f.stack.shieldUrl));
    expect(shield.status).toBe(403);
  });

  it("workerd listens on no TCP port at all behind the fronts: Miniflare's entry is a Unix socket too, so its parser's 500s reach no client", async () => {
    expect(await workerdTcpListeners()).toEqual([]);
    const entry = join(dirname(socketPath(f.stack.edgeSocket)), 'entry');
    expect((await stat(entry)).isSocket()).toBe(true);
    // Reached anyway (only this user can), it is Miniflare's entry worker, not a tier.
    expect(
      (await socketExchange({ path: entry }, 'GET /index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'))
        .statuses,
    ).not.toEqual([200]);
  });

  it('every refused request at the sockets the stack serves clients on gets a 4xx of ours, the absolute form at the shield included', async () => {
    for (const [base, absoluteStatus] of [
      [f.stack.url, 200],
      [f.stack.shieldUrl, 403],
    ] as const) {
      const { host } = new URL(base);
      // The absolute form is no refusal: the object at the edge, at the shield the 403 of a request without the edge's
      // credential.
      const absolute = await exchange(
        base,
        `GET http://${host}/index.html HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(absolute.statuses, `${base} absolute form`).toEqual([absoluteStatus]);
      const refused = [
        'GET * HTTP/1.1\r\nHost: a\r\n\r\n',
        'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n',
        'POST /index.html HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n',
        'GET /index.html HTTP/1.1\r\nHost: host:99999\r\n\r\n',
        'GET /index.html HTTP/1.1\nHost: a\n\n',
        ...HOSTILE.map(([, raw]) => raw),
      ];
      for (const raw of refused) {
        const answer = await exchange(base, raw);
        expect(answer.statuses, `${base} ${JSON.stringify(raw.slice(0, 60))}`).toHaveLength(1);
        expect(answer.statuses[0], `${base} ${JSON.stringify(raw.slice(0, 60))}`).toBeGreaterThanOrEqual(400);
        expect(answer.statuses[0], `${base} ${JSON.stringify(raw.slice(0, 60))}`).toBeLessThan(500);
      }
    }
  });

  it("the shield answers an absolute-form request of the edge's (its credential) as the object, never with a 500 (RFC 9112 §3.2.2)", async () => {
    const { host } = new URL(f.stack.shieldUrl);
    const answer = await exchange(
      f.stack.shieldUrl,
      `GET http://${host}/index.html HTTP/1.1\r\nHost: ${host}\r\nx-tiercache-credential: ${SHIELD_TOKEN}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer.statuses).toEqual([200]);
    expect(answer.text.endsWith('<p>hello</p>')).toBe(true);
  });

  it('the workerd sockets behind the fronts take no TCP connections: each is a Unix socket in a directory only this user may enter', async () => {
    for (const socket of [f.stack.edgeSocket, f.stack.shieldSocket]) {
      expect('path' in socket, JSON.stringify(socket)).toBe(true);
      if (!('path' in socket)) continue;
      expect((await stat(socket.path)).isSocket()).toBe(true);
      expect((await stat(dirname(socket.path))).mode & 0o077).toBe(0);
    }
    // Reached anyway, neither serves a request that did not come through its front or from the edge.
    expect(
      (await socketExchange(f.stack.shieldSocket, 'GET /index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'))
        .statuses,
    ).toEqual([403]);
  });
});

describe('hostile requests, http origin', () => {
  let site: Site;
  let stack: Stack;
  beforeAll(async () => {
    site = await startSite();
    site.page('/index.html', '<p>site</p>', { 'cache-control': 'max-age=600' });
    stack = await startWorkers({
      config: { ORIGIN_KIND: 'http', ORIGIN_URL: site.url, SHIELD_TOKEN, PURGE_TOKEN: 'purge-secret' },
      front: true,
      frontHeadTimeoutMs: SHORT_HEAD_TIMEOUT_MS,
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await site?.close();
  });

  for (const [name, raw, status] of HOSTILE) {
    it(`${name}: ${status} with a short body`, async () => {
      const answer = await exchange(stack.url, raw);
      expectOursAndShort(answer, name);
      expect(answer.statuses[0]).toBe(status);
    });
  }

  it('odd targets reach the site as paths, never a 500', async () => {
    for (const target of ODD_TARGETS) {
      const answer = await exchange(stack.url, `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
      expect(answer.statuses, target).toHaveLength(1);
      expect(answer.statuses[0], target).toBeLessThan(500);
    }
  });

  it('no spelling of a path, with any method, reaches an endpoint of the tiers or the site under their prefix', async () => {
    site.received.length = 0;
    for (const path of [...PURGE_SPELLINGS, ...CLIMBING_SPELLINGS]) {
      for (const method of ['POST', 'GET', 'DELETE']) {
        const answer = await exchange(
          stack.url,
          `${method} ${path} HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        expectOursAndShort(answer, `${method} ${path}`);
        expect([401, 404, 405], `${method} ${path}`).toContain(answer.statuses[0]);
      }
    }
    expect(site.received.filter((r) => /tiercache/i.test(decodeURIComponent(r.path)))).toEqual([]);
  });

  it('a path that climbs into the prefix once the site decodes it is answered 404 by the edge, never sent to the site', async () => {
    site.received.length = 0;
    for (const path of CLIMBING_SPELLINGS) {
      const answer = await exchange(stack.url, `GET ${path} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
      expect(answer.statuses, path).toEqual([404]);
      expect(answer.body, path).toMatch(/no such endpoint/);
    }
    await settle();
    expect(site.received.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('the prefix in any case never reaches the site, with any method: 404, as a case-insensitive site would read it', async () => {
    site.page('/__TIERCACHE/purge', '<p>the site’s own page of that name</p>');
    site.received.length = 0;
    for (const path of CASE_SPELLINGS) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const answer = await exchange(
          stack.url,
          `${method} ${path} HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        expectOursAndShort(answer, `${method} ${path}`);
        expect(answer.statuses, `${method} ${path}`).toEqual([404]);
        expect(answer.body, `${method} ${path}`).toMatch(/no such endpoint/);
      }
    }
    await settle();
    expect(site.received.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('a malformed chunked body is refused with 400 before any of the request reaches the site (RFC 9112 §7.1)', async () => {
    site.received.length = 0;
    const answer = await exchange(
      stack.url,
      'POST /comments HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6 \r\n world\r\n0\r\n\r\n',
    );
    expect(answer.statuses).toEqual([400]);
    expect(answer.closed).toBe(true);
    await settle();
    expect(site.received.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('a well-formed chunked body reaches the site whole, its extensions and trailers dropped (RFC 9112 §7.1)', async () => {
    site.received.length = 0;
    const answer = await exchange(
      stack.url,
      'POST /comments HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n6 ; note="x"\r\n world\r\n0\r\nX-Checksum: 1\r\n\r\n',
    );
    expect(answer.statuses).toEqual([201]);
    expect(site.received.map((r) => [r.method, r.path, r.body])).toEqual([['POST', '/comments', 'hello world']]);
  });

  it('a chunked upload that waits for 100 Continue gets it, then its answer (RFC 9110 §10.1.1)', async () => {
    site.received.length = 0;
    const url = new URL(stack.url);
    const text = await new Promise<string>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(
          'PUT /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
        ),
      );
      let data = '';
      let sent = false;
      const timer = setTimeout(() => socket.destroy(), 5000);
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString('latin1');
        if (!sent && data.includes('\r\n\r\n')) {
          sent = true;
          socket.write('3\r\nabc\r\n0\r\n\r\n');
        }
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(data);
      });
      socket.on('error', () => undefined);
    });
    expect([...text.matchAll(/(?:^|\r\n)HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))).toEqual([100, 200]);
    expect(site.received.map((r) => [r.method, r.path, r.body])).toEqual([['PUT', '/upload', 'abc']]);
  });

  it('a head that never completes gets 408 once the front stops waiting, and the connection is closed', async () => {
    const answer = await exchange(stack.url, 'GET /index.html HTTP/1.1\r\nHost: a\r\n', SHORT_HEAD_TIMEOUT_MS * 5);
    expect(answer.statuses).toEqual([408]);
    expect(answer.closed).toBe(true);
  });

  it('a connection that never sends a byte is closed once the front stops waiting, without an answer', async () => {
    const answer = await exchange(stack.url, '', SHORT_HEAD_TIMEOUT_MS * 5);
    expect(answer.statuses).toEqual([]);
    expect(answer.closed).toBe(true);
  });

  it('a second head that never completes, behind an answered request, gets that answer and then 408', async () => {
    const answer = await exchange(
      stack.url,
      'GET /index.html HTTP/1.1\r\nHost: a\r\n\r\nGET /index.html HTTP/1.1\r\n',
      SHORT_HEAD_TIMEOUT_MS * 5,
    );
    expect(answer.statuses[0]).toBe(200);
    // The 408 follows the page's body, which ends without a line end of its own.
    expect(answer.text.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 408 ']);
    expect(answer.text.endsWith('408 the request head did not arrive in time\n')).toBe(true);
    expect(answer.closed).toBe(true);
  });

  it('a smuggled request never reaches the site', async () => {
    site.received.length = 0;
    const answer = await exchange(stack.url, smuggle('/smuggled'));
    expect(answer.statuses).toEqual([400]);
    await settle();
    expect(site.received.filter((r) => r.path.includes('smuggled'))).toEqual([]);
  });
});

/** The path of a workerd socket behind a front. */
function socketPath(socket: WorkerdSocket): string {
  if (!('path' in socket)) throw new Error(`expected a Unix socket, got ${JSON.stringify(socket)}`);
  return socket.path;
}

/** The TCP sockets in LISTEN state held by the workerd processes this test process started (Linux /proc). */
async function workerdTcpListeners(): Promise<string[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const workerds: string[] = [];
  for (const pid of pids) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const ppid = /^PPid:\s+(\d+)$/m.exec(status)?.[1];
    if (/^Name:\s+workerd$/m.test(status) && ppid === String(process.pid)) workerds.push(pid);
  }
  expect(workerds.length).toBeGreaterThan(0);
  const inodes = new Set<string>();
  for (const pid of workerds) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) inodes.add(inode);
    }
  }
  const listening: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // local_address, state 0A = LISTEN, inode (the kernel's proc(5) layout).
      if (fields[3] === '0A' && fields[9] !== undefined && inodes.has(fields[9]))
        listening.push(`${table} ${fields[1]}`);
    }
  }
  return listening;
}
