// An http origin that sends no ETag, only Last-Modified and a length (Storj's linksharing, many static servers):
// its large objects are sliced, each version named by its Last-Modified and length, every later slice asked with
// If-Unmodified-Since and checked for both; when the object changes between two slices a client gets the new
// version whole and exact, or a visibly broken transfer of the old one, never a body mixed from two versions.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, type Received, type Scripted, startAnyOrigin } from './any-origin.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type RawAnswer, rawRequest, settle } from './fixture.ts';

const MiB = 1024 * 1024;
const JAN_1 = 'Wed, 01 Jan 2025 00:00:00 GMT';
const JAN_2 = 'Thu, 02 Jan 2025 00:00:00 GMT';

let origin: AnyOrigin;
let stack: Stack;
let n = 0;

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({
    config: {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: origin.url,
      SHIELD_TOKEN: 't',
      SLICE_SIZE: '1MiB',
      STALE_WHILE_REVALIDATE: '0',
      STALE_IF_ERROR: '0',
    },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

interface Version {
  bytes: Uint8Array;
  /** Its Last-Modified; undefined: the origin sends none. */
  lastModified: string | undefined;
}

/**
 * A static server's object without an ETag: 206 for a range, 200 without one, 304 for an If-Modified-Since it
 * satisfies and, when it `honours` it, 412 for an If-Unmodified-Since it fails (RFC 9110 §13.1.4); a plain server
 * that ignores it answers the range of whatever it holds now. `next`: the version it holds once it has answered its
 * first range (the object changed after the first slice went out).
 */
interface NoEtagObject {
  current: Version;
  next?: Version;
  honours: boolean;
  /** Its Date: now, unless a test makes it the Last-Modified's own second. */
  date?: () => string;
}

function serve(object: NoEtagObject): string {
  const path = `/no-etag-${++n}.bin`;
  origin.answer(path, (request) => {
    const answer = answerNoEtag(object, request);
    if (object.next !== undefined && request.method === 'GET' && request.headers.range !== undefined) {
      object.current = object.next;
      delete object.next;
    }
    return answer;
  });
  return path;
}

function answerNoEtag(object: NoEtagObject, request: Received): Scripted {
  const { bytes, lastModified } = object.current;
  const headers: Record<string, string> = {
    date: object.date?.() ?? new Date().toUTCString(),
    'cache-control': 'max-age=600',
    'content-type': 'application/octet-stream',
    'accept-ranges': 'bytes',
    ...(lastModified === undefined ? {} : { 'last-modified': lastModified }),
  };
  const modified = lastModified === undefined ? undefined : Date.parse(lastModified);
  const ius = request.headers['if-unmodified-since'];
  if (object.honours && ius !== undefined && (modified === undefined || modified > Date.parse(ius)))
    return { status: 412, headers };
  const ims = request.headers['if-modified-since'];
  if (ims !== undefined && modified !== undefined && modified <= Date.parse(ims)) return { status: 304, headers };
  const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  if (range === null) return { status: 200, headers, body: bytes };
  const start = Number(range[1]);
  if (start >= bytes.length)
    return { status: 416, headers: { ...headers, 'content-range': `bytes */${bytes.length}` } };
  const end = Math.min(range[2] === '' ? bytes.length - 1 : Number(range[2]), bytes.length - 1);
  return {
    status: 206,
    headers: { ...headers, 'content-range': `bytes ${start}-${end}/${bytes.length}` },
    body: bytes.subarray(start, end + 1),
  };
}

const get = (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> =>
  rawRequest(new URL(path, stack.url), headers, method);
const edgeMember = (answer: RawAnswer): string =>
  (answer.headers.get('cache-status') ?? '').split(',').at(-1)?.trim() ?? '';
const originGets = (path: string): Received[] => origin.receivedFor(path).filter((r) => r.method === 'GET');

/** A full GET, a HEAD and two ranges of `path`: each complete, with exactly `bytes`. */
async function expectExactReads(path: string, bytes: Uint8Array): Promise<void> {
  const full = await get(path);
  expect(full.error, `GET ${path}: ${edgeMember(full)}`).toBeUndefined();
  expect(full.status).toBe(200);
  expect(full.headers.get('content-length')).toBe(String(bytes.length));
  expect(sha256(full.body)).toBe(sha256(bytes));
  const head = await get(path, {}, 'HEAD');
  expect(head.status).toBe(200);
  expect(head.headers.get('content-length')).toBe(String(bytes.length));
  for (const [start, end] of [
    [MiB - 5, 2 * MiB + 4],
    [bytes.length - 100, bytes.length - 1],
  ] as const) {
    const ranged = await get(path, { range: `bytes=${start}-${end}` });
    expect(ranged.error, `Range ${start}-${end} of ${path}: ${edgeMember(ranged)}`).toBeUndefined();
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${start}-${end}/${bytes.length}`);
    expect(sha256(ranged.body)).toBe(sha256(bytes.subarray(start, end + 1)));
  }
}

/**
 * A full GET read across the change: the new version whole and exact (the change was seen before the first byte and
 * the read restarted), or a visibly broken transfer holding only a prefix of the old one; never a complete-looking
 * body of mixed bytes.
 */
function expectOneVersion(answer: RawAnswer, before: Uint8Array, after: Uint8Array): void {
  expect(answer.status, 'never a 500 of ours').not.toBe(500);
  if (answer.error === undefined && answer.status === 200) {
    expect(answer.headers.get('content-length')).toBe(String(after.length));
    expect(sha256(answer.body)).toBe(sha256(after));
    return;
  }
  expect(answer.error, `status ${answer.status}, ${answer.body.length} bytes`).toBeDefined();
  expect(answer.body.length).toBeLessThan(before.length);
  expect(sha256(answer.body)).toBe(sha256(before.subarray(0, answer.body.length)));
}

describe('an http origin without ETag: sliced, each version named by Last-Modified and length', () => {
  it('a cold read is exact and sliced; its later slices are asked If-Unmodified-Since the Last-Modified; no ETag is made up for the client', async () => {
    const bytes = patternBytes(101, 3 * MiB + 17);
    const path = serve({ current: { bytes, lastModified: JAN_1 }, honours: true });
    const cold = await get(path);
    expect(cold.error, edgeMember(cold)).toBeUndefined();
    expect(cold.status).toBe(200);
    expect(sha256(cold.body)).toBe(sha256(bytes));
    expect(cold.headers.get('etag')).toBeNull();
    expect(cold.headers.get('last-modified')).toBe(JAN_1);
    expect(edgeMember(cold)).toMatch(/detail="slices \d\/4"/);
    const gets = originGets(path);
    expect(gets.map((r) => r.headers.range).sort()).toEqual([
      'bytes=0-1048575',
      'bytes=1048576-2097151',
      'bytes=2097152-3145727',
      'bytes=3145728-3145744',
    ]);
    // Slice 0 discovers the version; every later one is pinned to it.
    expect(
      gets.filter((r) => r.headers.range !== 'bytes=0-1048575').map((r) => r.headers['if-unmodified-since']),
    ).toEqual([JAN_1, JAN_1, JAN_1]);
    expect(gets.every((r) => r.headers['if-match'] === undefined)).toBe(true);
    await settle();
    await expectExactReads(path, bytes);
  });

  for (const honours of [true, false]) {
    const server = honours ? 'an origin that honours If-Unmodified-Since (412)' : 'a plain server that ignores it';
    it(`${server}: a new Last-Modified and length between two slices of a cold read never mix; later reads are the new version`, async () => {
      const v1 = patternBytes(201 + n, 4 * MiB + 3);
      const v2 = patternBytes(301 + n, 3 * MiB + 11);
      const path = serve({
        current: { bytes: v1, lastModified: JAN_1 },
        next: { bytes: v2, lastModified: JAN_2 },
        honours,
      });
      expectOneVersion(await get(path), v1, v2);
      await settle();
      await expectExactReads(path, v2);
    });

    it(`${server}: a change seen before the first byte restarts the read, which serves the new version exact`, async () => {
      const v1 = patternBytes(401 + n, 4 * MiB + 3);
      const v2 = patternBytes(501 + n, 3 * MiB + 11);
      const object: NoEtagObject = { current: { bytes: v1, lastModified: JAN_1 }, honours };
      const path = serve(object);
      const first = await get(path, { range: 'bytes=0-9' });
      expect(sha256(first.body)).toBe(sha256(v1.subarray(0, 10)));
      await settle();
      object.current = { bytes: v2, lastModified: JAN_2 };
      const start = 2 * MiB + 5;
      const answer = await get(path, { range: `bytes=${start}-${start + 99}` });
      expect(answer.error).toBeUndefined();
      expect(answer.status).toBe(206);
      expect(answer.headers.get('content-range')).toBe(`bytes ${start}-${start + 99}/${v2.length}`);
      expect(sha256(answer.body)).toBe(sha256(v2.subarray(start, start + 100)));
      await settle();
      await expectExactReads(path, v2);
    });
  }

  it('a plain server: another version of the same length (only Last-Modified moved) is not taken for the pinned one', async () => {
    const v1 = patternBytes(601, 4 * MiB);
    const v2 = patternBytes(602, 4 * MiB);
    const path = serve({
      current: { bytes: v1, lastModified: JAN_1 },
      next: { bytes: v2, lastModified: JAN_2 },
      honours: false,
    });
    expectOneVersion(await get(path), v1, v2);
    await settle();
    await expectExactReads(path, v2);
  });

  it('a plain server: another length under the same Last-Modified (a copy that kept its mtime) is not taken for the pinned one', async () => {
    const v1 = patternBytes(701, 4 * MiB);
    const v2 = patternBytes(702, 4 * MiB + 1);
    const path = serve({
      current: { bytes: v1, lastModified: JAN_1 },
      next: { bytes: v2, lastModified: JAN_1 },
      honours: false,
    });
    expectOneVersion(await get(path), v1, v2);
    await settle();
    await expectExactReads(path, v2);
  });
});

describe('an http origin without ETag whose version cannot be told apart: cached whole, as before', () => {
  it('neither ETag nor Last-Modified: the object is fetched whole once, and served exact', async () => {
    const bytes = patternBytes(801, 3 * MiB + 17);
    const path = serve({ current: { bytes, lastModified: undefined }, honours: true });
    const answer = await get(path, { range: 'bytes=10-19' });
    expect(answer.status).toBe(206);
    expect(sha256(answer.body)).toBe(sha256(bytes.subarray(10, 20)));
    expect(edgeMember(answer)).not.toMatch(/slices/);
    expect(originGets(path).map((r) => r.headers.range)).toEqual(['bytes=0-1048575', undefined]);
    await settle();
    await expectExactReads(path, bytes);
  });

  it('a Last-Modified in the second of its Date (RFC 9110 §8.8.2.2: it could change again within it): cached whole', async () => {
    const bytes = patternBytes(802, 3 * MiB + 17);
    const path = serve({ current: { bytes, lastModified: JAN_1 }, honours: true, date: () => JAN_1 });
    const answer = await get(path, { range: 'bytes=10-19' });
    expect(answer.status).toBe(206);
    expect(sha256(answer.body)).toBe(sha256(bytes.subarray(10, 20)));
    expect(edgeMember(answer)).not.toMatch(/slices/);
    expect(originGets(path).map((r) => r.headers.range)).toEqual(['bytes=0-1048575', undefined]);
  });
});
