// A sliced object's manifest through both tiers, against a site that serves ranges with
// validators (ranged-object.ts) and against S3: whatever a 304 or a Cache-Control field list
// does to the stored headers, every later GET, HEAD and Range is the object's exact bytes or a
// visibly failed transfer, never a short or empty 200; a transient failure of the next hop is
// not taken for a new version.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { FakeClock, type Fixture, type RawAnswer, rawRequest, settle, startFixture } from './fixture.ts';
import { answerRanged, type RangedObject } from './ranged-object.ts';

const MiB = 1024 * 1024;
const SIZE = 3 * MiB + 17;
const SLICING = { SLICE_SIZE: '1MiB', SLICE_THRESHOLD: '2MiB' };

let origin: AnyOrigin;
let stack: Stack;
const clock = new FakeClock();
let n = 0;

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: origin.url,
      SHIELD_TOKEN: 't',
      STALE_WHILE_REVALIDATE: '0',
      STALE_IF_ERROR: '0',
      ...SLICING,
    },
    clock: clock.now,
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

/** A new object at a path no other test uses, served by the scriptable origin. */
function serve(headers: Record<string, string>, etag = `"v${++n}"`): { path: string; object: RangedObject } {
  const path = `/sliced-${++n}.bin`;
  const object: RangedObject = { bytes: patternBytes(n, SIZE), etag, headers, now: clock.now };
  origin.answer(path, (request) => answerRanged(object, request));
  return { path, object };
}

const edgeMember = (answer: RawAnswer): string =>
  (answer.headers.get('cache-status') ?? '').split(',').at(-1)?.trim() ?? '';
const shieldMember = (answer: RawAnswer): string =>
  (answer.headers.get('cache-status') ?? '')
    .split(',')
    .find((m) => m.includes('tiercache-shield'))
    ?.trim() ?? '';

/** GET, HEAD and two ranges of `path`: each complete, with the object's exact bytes and length. */
async function expectExactReads(base: string, path: string, bytes: Uint8Array): Promise<void> {
  const url = new URL(path, base);
  const full = await rawRequest(url);
  expect(full.error, `GET ${path}: ${edgeMember(full)}`).toBeUndefined();
  expect(full.status, `GET ${path}: ${edgeMember(full)}`).toBe(200);
  expect(full.headers.get('content-length')).toBe(String(bytes.length));
  expect(sha256(full.body)).toBe(sha256(bytes));
  const head = await rawRequest(url, {}, 'HEAD');
  expect(head.status, `HEAD ${path}: ${edgeMember(head)}`).toBe(200);
  expect(head.headers.get('content-length'), `HEAD ${path}: ${edgeMember(head)}`).toBe(String(bytes.length));
  for (const [start, end] of [
    [MiB - 5, 2 * MiB + 4],
    [bytes.length - 100, bytes.length - 1],
  ] as const) {
    const ranged = await rawRequest(url, { range: `bytes=${start}-${end}` });
    expect(ranged.error, `Range ${start}-${end} of ${path}: ${edgeMember(ranged)}`).toBeUndefined();
    expect(ranged.status, `Range ${start}-${end} of ${path}: ${edgeMember(ranged)}`).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${start}-${end}/${bytes.length}`);
    expect(sha256(ranged.body)).toBe(sha256(bytes.subarray(start, end + 1)));
  }
}

describe('a sliced object whose stored headers change', () => {
  it('RFC 9111 §4.3.4: a 304 with the weak form of the pinned ETag refreshes the manifest, which still serves the exact bytes at both tiers', async () => {
    const { path, object } = serve({ 'cache-control': 'max-age=60', 'content-type': 'application/octet-stream' });
    await expectExactReads(stack.url, path, object.bytes);
    await settle();
    object.notModifiedEtag = object.etag.replace(/^"/, 'W/"');
    clock.advance(61);
    const revalidated = await rawRequest(new URL(path, stack.url));
    expect(revalidated.status).toBe(200);
    expect(sha256(revalidated.body)).toBe(sha256(object.bytes));
    await settle();
    const before = origin.receivedFor(path).length;
    await expectExactReads(stack.url, path, object.bytes);
    const hit = await rawRequest(new URL(path, stack.url));
    expect(edgeMember(hit)).toMatch(/hit/);
    // The refreshed manifest is used: nothing more was asked of the origin.
    expect(origin.receivedFor(path).length).toBe(before);
  });

  for (const directive of ['private="ETag"', 'no-cache="ETag"', 'private="etag, content-type"']) {
    it(`RFC 9111 §5.2.2.7, §5.2.2.4: max-age=60, ${directive} on a sliced object never leaves a manifest without its version`, async () => {
      const { path, object } = serve({
        'cache-control': `max-age=60, ${directive}`,
        'content-type': 'application/octet-stream',
      });
      await expectExactReads(stack.url, path, object.bytes);
      await settle();
      await expectExactReads(stack.url, path, object.bytes);
      clock.advance(61);
      await expectExactReads(stack.url, path, object.bytes);
    });
  }

  it('RFC 9111 §4.3.4: a 304 whose ETag names another version updates nothing: the object is asked for again, and every read is exact', async () => {
    const { path, object } = serve({ 'cache-control': 'max-age=60' });
    const url = new URL(path, stack.url);
    const first = await rawRequest(url);
    expect(sha256(first.body)).toBe(sha256(object.bytes));
    await settle();
    object.notModifiedEtag = 'W/"other"';
    clock.advance(61);
    const before = origin.receivedFor(path).length;
    await expectExactReads(stack.url, path, object.bytes);
    const asked = origin.receivedFor(path).slice(before);
    // The conditional request, answered 304 for another version; then the same slice unconditionally.
    expect(asked[0]?.headers['if-none-match']).toBe(object.etag);
    expect(asked[1]).toMatchObject({ headers: { range: asked[0]?.headers.range } });
    expect(asked[1]?.headers['if-none-match']).toBeUndefined();
  });
});

describe('a sliced object under any 304s and field lists: its manifest keeps every read exact', () => {
  const FIELDS = ['ETag', 'etag', 'Content-Type', 'Content-Encoding', 'Last-Modified', 'X-Extra', 'Cache-Control'];
  const qualified = fc
    .tuple(
      fc.constantFrom('private', 'no-cache'),
      fc.uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: 3 }),
    )
    .map(([name, fields]) => `${name}="${fields.join(', ')}"`);
  /** The form of the ETag each 304 carries: the pinned one, its weak form, or another version's (strong or weak). */
  const notModified = fc.constantFrom('strong', 'weak', 'other-weak', 'other-strong');
  const step = fc.record({ advance: fc.integer({ min: 0, max: 150 }), notModified });

  it("every GET, HEAD and Range after any sequence of 304 updates, with any qualified private/no-cache, is the object's exact bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(qualified, { maxLength: 2 }),
        fc.integer({ min: 30, max: 120 }),
        fc.array(step, { minLength: 1, maxLength: 4 }),
        async (directives, maxAge, steps) => {
          const { path, object } = serve({
            'cache-control': [`max-age=${maxAge}`, ...directives].join(', '),
            'content-type': 'application/octet-stream',
            'last-modified': 'Mon, 02 Mar 2026 09:00:00 GMT',
            'x-extra': '1',
          });
          await expectExactReads(stack.url, path, object.bytes);
          for (const { advance, notModified: form } of steps) {
            object.notModifiedEtag = {
              strong: object.etag,
              weak: `W/${object.etag}`,
              'other-weak': 'W/"other"',
              'other-strong': '"other"',
            }[form];
            await settle(50);
            clock.advance(advance);
            await expectExactReads(stack.url, path, object.bytes);
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('a qualified no-cache or private naming a field the stored bytes need', () => {
  for (const directive of ['no-cache="Content-Encoding"', 'private="Content-Encoding"', 'no-cache="content-type"']) {
    it(`RFC 9111 §5.2.2.4, §5.2.2.7: ${directive} — every answer carries the coding and type the bytes were sent with`, async () => {
      const path = `/encoded-${++n}.txt`;
      const gzip = Uint8Array.from([
        0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x4b, 0x4c, 0x4a, 6, 0, 0xc2, 0x41, 0x24, 0x35, 3, 0, 0, 0,
      ]);
      origin.answer(path, () => ({
        status: 200,
        headers: {
          date: new Date(clock.now()).toUTCString(),
          'cache-control': `max-age=60, ${directive}`,
          'content-encoding': 'gzip',
          'content-type': 'text/plain',
          etag: '"gz1"',
        },
        body: gzip,
      }));
      for (let i = 0; i < 3; i++) {
        const answer = await rawRequest(new URL(path, stack.url), { 'accept-encoding': 'gzip' });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-encoding'), `answer ${i}: ${edgeMember(answer)}`).toBe('gzip');
        expect(answer.headers.get('content-type')).toBe('text/plain');
        expect(sha256(answer.body)).toBe(sha256(gzip));
        await settle();
      }
    });
  }
});

describe('Cache-Status of a sliced object that is not stored', () => {
  it('RFC 9211 §2.5: a no-store sliced answer is not reported as stored by either tier', async () => {
    const { path, object } = serve({ 'cache-control': 'no-store' });
    const answer = await rawRequest(new URL(path, stack.url));
    expect(sha256(answer.body)).toBe(sha256(object.bytes));
    expect(edgeMember(answer)).toMatch(/fwd=uri-miss/);
    expect(edgeMember(answer)).not.toMatch(/stored/);
    expect(shieldMember(answer)).not.toMatch(/stored/);
  });
});

describe('a transient failure of the next hop on a pinned slice', () => {
  it("a shield's 503 for a slice of the pinned version fails that request and leaves the edge's fresh manifest in place", async () => {
    const { path, object } = serve({ 'cache-control': 'max-age=600' });
    const url = new URL(path, stack.url);
    const opening = await rawRequest(url, { range: 'bytes=0-99' });
    expect(opening.status).toBe(206);
    await settle();
    object.failing = { from: 2 * MiB, status: 503 };
    const failed = await rawRequest(url, { range: `bytes=${2 * MiB}-${2 * MiB + 99}` });
    expect(failed.status === 503 || failed.error !== undefined).toBe(true);
    await settle();
    delete object.failing;
    const after = await rawRequest(url, { range: 'bytes=0-99' });
    expect(sha256(after.body)).toBe(sha256(object.bytes.subarray(0, 100)));
    // The manifest was kept: the edge answered from it, without discovering the object again.
    expect(edgeMember(after)).toMatch(/tiercache-edge; hit/);
  });
});

describe('S3: a qualified private naming the ETag', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await startFixture(SLICING);
  });
  afterAll(() => f?.close());

  it('RFC 9111 §5.2.2.7: an object whose metadata says private="ETag" serves its exact bytes sliced, hit after hit', async () => {
    const bytes = patternBytes(99, SIZE);
    await f.origin.putObject('private-etag.bin', bytes, {
      'cache-control': 'max-age=60, private="ETag"',
      'content-type': 'application/octet-stream',
    });
    await expectExactReads(f.stack.url, '/private-etag.bin', bytes);
    await settle();
    await expectExactReads(f.stack.url, '/private-etag.bin', bytes);
  });
});
