// Objects stored encoded (Content-Encoding from S3 metadata, or a site's own gzip answer) are
// served as exactly their stored bytes, with that header, at every tier, whole and sliced, hit
// and miss: ranges and Content-Length count the encoded bytes, ETags stay strong, and a client
// that decodes (curl --compressed) gets the original content.

import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Fixture, type RawAnswer, rawRequest, settle, startFixture } from './fixture.ts';
import { type Site, startSite } from './http-site.ts';

const MiB = 1024 * 1024;
const ORIGINAL_SMALL = patternBytes(41, 3 * MiB);
const ORIGINAL_LARGE = patternBytes(42, 20 * MiB);
// Random bytes do not shrink: the encoded objects are about as large as the originals.
const GZIPPED = new Uint8Array(gzipSync(ORIGINAL_SMALL));
const BROTLIED = new Uint8Array(
  brotliCompressSync(ORIGINAL_LARGE, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
);
const GZIPPED_LARGE = new Uint8Array(gzipSync(ORIGINAL_LARGE, { level: 1 }));
const BROTLIED_SMALL = new Uint8Array(
  brotliCompressSync(ORIGINAL_SMALL, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
);

let f: Fixture;
// An encoding-aware client asks for both, as curl --compressed does.
const ACCEPT = { 'accept-encoding': 'gzip, br' };

beforeAll(async () => {
  // 1 MiB slices from 4 MiB up: the 3 MiB objects are stored whole, the 20 MiB ones sliced.
  f = await startFixture({ SLICE_SIZE: '1MiB', SLICE_THRESHOLD: '4MiB' });
  await f.origin.putObject('encoded/small.txt.gz', GZIPPED, {
    'content-type': 'text/plain',
    'content-encoding': 'gzip',
  });
  await f.origin.putObject('encoded/small.txt.br', BROTLIED_SMALL, {
    'content-type': 'text/plain',
    'content-encoding': 'br',
  });
  await f.origin.putObject('encoded/large.bin.gz', GZIPPED_LARGE, {
    'content-type': 'application/octet-stream',
    'content-encoding': 'gzip',
  });
  await f.origin.putObject('encoded/large.bin.br', BROTLIED, {
    'content-type': 'application/octet-stream',
    'content-encoding': 'br',
  });
});
afterAll(() => f?.close());

const get = (path: string, headers: Record<string, string> = {}): Promise<RawAnswer> =>
  rawRequest(new URL(path, f.stack.url), { ...ACCEPT, ...headers });

function decode(encoding: string, bytes: Uint8Array): Uint8Array {
  return new Uint8Array(encoding === 'gzip' ? gunzipSync(bytes) : brotliDecompressSync(bytes));
}

/** Full, ranged and bytes=0- reads of `path`: each exactly the stored bytes, with their encoding. */
async function expectExact(
  path: string,
  stored: Uint8Array,
  original: Uint8Array,
  encoding: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const full = await get(path, headers);
  expect(full.status).toBe(200);
  expect(full.error).toBeUndefined();
  expect(full.headers.get('content-encoding')).toBe(encoding);
  expect(full.headers.get('content-length')).toBe(String(stored.length));
  expect(full.headers.get('etag')).toMatch(/^"/);
  expect(sha256(full.body)).toBe(sha256(stored));
  expect(sha256(decode(encoding, full.body))).toBe(sha256(original));

  const from = stored.length - 5000;
  const ranged = await get(path, { ...headers, range: `bytes=1000-1999,${from}-` });
  expect(ranged.status).toBe(206);
  const single = await get(path, { ...headers, range: `bytes=${MiB - 10}-${2 * MiB + 9}` });
  expect(single.status).toBe(206);
  expect(single.headers.get('content-encoding')).toBe(encoding);
  expect(single.headers.get('content-range')).toBe(`bytes ${MiB - 10}-${2 * MiB + 9}/${stored.length}`);
  expect(sha256(single.body)).toBe(sha256(stored.subarray(MiB - 10, 2 * MiB + 10)));

  const opening = await get(path, { ...headers, range: 'bytes=0-' });
  expect(opening.status).toBe(206);
  expect(opening.headers.get('content-range')).toBe(`bytes 0-${stored.length - 1}/${stored.length}`);
  expect(sha256(opening.body)).toBe(sha256(stored));
}

const edgeMember = (answer: RawAnswer): string => (answer.headers.get('cache-status') ?? '').split(',').at(-1) ?? '';

describe('encoded objects pass through byte-exact with their Content-Encoding', () => {
  for (const [path, stored, original, encoding] of [
    ['/encoded/small.txt.gz', GZIPPED, ORIGINAL_SMALL, 'gzip'],
    ['/encoded/small.txt.br', BROTLIED_SMALL, ORIGINAL_SMALL, 'br'],
    ['/encoded/large.bin.gz', GZIPPED_LARGE, ORIGINAL_LARGE, 'gzip'],
    ['/encoded/large.bin.br', BROTLIED, ORIGINAL_LARGE, 'br'],
  ] as const) {
    it(`${path}: miss, hit, at the shield alone, and from a whole copy`, async () => {
      const miss = await get(path);
      expect(edgeMember(miss)).toMatch(/fwd=uri-miss/);
      expect(miss.headers.get('content-encoding')).toBe(encoding);
      expect(sha256(miss.body)).toBe(sha256(stored));
      await settle(400);
      await expectExact(path, stored, original, encoding);
      expect(edgeMember(await get(path))).toMatch(/hit/);
      await expectExact(path, stored, original, encoding, { host: 'another-host.test' });
      await settle(400);
      if (stored.length > 4 * MiB) expect(edgeMember(await get(path))).toMatch(/whole copy/);
      await expectExact(path, stored, original, encoding);
    });
  }

  it('a client that asks for no encoding gets the stored bytes too (a cache does not decode)', async () => {
    const answer = await rawRequest(new URL('/encoded/small.txt.gz', f.stack.url));
    expect(answer.headers.get('content-encoding')).toBe('gzip');
    expect(sha256(answer.body)).toBe(sha256(GZIPPED));
  });
});

describe('a site answering gzip itself (http origin)', () => {
  let site: Site;
  let stack: Stack;
  beforeAll(async () => {
    site = await startSite();
    site.page('/app.js', GZIPPED, {
      'content-encoding': 'gzip',
      'cache-control': 'max-age=600',
      etag: '"js1"',
      'content-type': 'text/javascript',
    });
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 'http',
        ORIGIN_URL: site.url,
        SHIELD_TOKEN: 't',
        SLICE_SIZE: '1MiB',
        SLICE_THRESHOLD: '4MiB',
      },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await site?.close();
  });

  it('is stored and served as the site sent it, miss and hit', async () => {
    for (const round of ['miss', 'hit']) {
      const answer = await rawRequest(new URL('/app.js', stack.url), ACCEPT);
      expect(answer.headers.get('content-encoding'), round).toBe('gzip');
      expect(answer.headers.get('content-length'), round).toBe(String(GZIPPED.length));
      expect(sha256(answer.body), round).toBe(sha256(GZIPPED));
      expect(sha256(decode('gzip', answer.body)), round).toBe(sha256(ORIGINAL_SMALL));
      await settle(300);
    }
  });
});
