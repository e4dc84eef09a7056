import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drain, patternBytes, sha256 } from './bytes.ts';
import { type Answer, cacheStatus, type Fixture, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const CLIP = patternBytes(7, 5.5 * MiB);
let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ SLICE_SIZE: '1MiB' });
  await f.origin.putObject('media/clip.bin', CLIP, { 'content-type': 'video/mp4' });
});
afterAll(() => f?.close());

const range = (path: string, value: string, headers: Record<string, string> = {}): Promise<Answer> =>
  f.get(path, { headers: { range: value, ...headers } });
const originGets = (): { range: string | undefined }[] =>
  f.tap.requests.filter((r) => r.method === 'GET').map((r) => ({ range: r.headers.range }));

describe('client ranges on a sliced object (RFC 9110 §14)', () => {
  it('serves a range inside one slice as 206 with its Content-Range', async () => {
    const answer = await range('/media/clip.bin', 'bytes=100-199');
    expect(answer.status).toBe(206);
    // Content-Range counts identity bytes: nothing on the way may compress it.
    expect(answer.headers.get('cache-control')).toMatch(/no-transform/);
    expect(answer.headers.get('content-range')).toBe(`bytes 100-199/${CLIP.length}`);
    expect(answer.headers.get('content-length')).toBe('100');
    expectBytes(answer.body, CLIP.subarray(100, 200));
  });

  it("never shows a client the tiers' own fields (manifest, slice and span markers), cold or warm", async () => {
    await f.origin.putObject('media/fields.bin', CLIP, { 'content-type': 'video/mp4' });
    for (const answer of [
      await f.get('/media/fields.bin'),
      await f.get('/media/fields.bin'),
      await range('/media/fields.bin', `bytes=${2 * MiB}-${2 * MiB + 9}`),
    ]) {
      expect(answer.status).toBeLessThan(300);
      expect([...answer.headers.keys()].filter((name) => name.startsWith('x-tiercache-'))).toEqual([]);
    }
  });

  it('serves a range across slice boundaries', async () => {
    const answer = await range('/media/clip.bin', `bytes=${MiB - 10}-${3 * MiB + 9}`);
    expect(answer.status).toBe(206);
    expectBytes(answer.body, CLIP.subarray(MiB - 10, 3 * MiB + 10));
  });

  it('serves the last byte, a suffix and an open-ended range', async () => {
    const last = await range('/media/clip.bin', `bytes=${CLIP.length - 1}-${CLIP.length - 1}`);
    expectBytes(last.body, CLIP.subarray(CLIP.length - 1));
    const suffix = await range('/media/clip.bin', 'bytes=-1500');
    expect(suffix.headers.get('content-range')).toBe(`bytes ${CLIP.length - 1500}-${CLIP.length - 1}/${CLIP.length}`);
    expectBytes(suffix.body, CLIP.subarray(CLIP.length - 1500));
    const open = await range('/media/clip.bin', `bytes=${4 * MiB + 3}-`);
    expectBytes(open.body, CLIP.subarray(4 * MiB + 3));
  });

  it('answers bytes=0- with 206 and the whole body', async () => {
    const answer = await range('/media/clip.bin', 'bytes=0-');
    expect(answer.status).toBe(206);
    expect(answer.headers.get('content-range')).toBe(`bytes 0-${CLIP.length - 1}/${CLIP.length}`);
    expect(sha256(answer.body)).toBe(sha256(CLIP));
  });

  it('answers several ranges as multipart/byteranges, overlapping ones coalesced', async () => {
    const answer = await range('/media/clip.bin', `bytes=0-9, 5-19, ${2 * MiB}-${2 * MiB + 4}, -3`);
    expect(answer.status).toBe(206);
    const type = answer.headers.get('content-type') ?? '';
    expect(type).toMatch(/^multipart\/byteranges; boundary=/);
    expect(Number(answer.headers.get('content-length'))).toBe(answer.body.byteLength);
    const parts = multipartParts(answer.body, type.split('boundary=')[1]!.replace(/"/g, ''));
    expect(parts.map((p) => p.range)).toEqual([
      `bytes 0-19/${CLIP.length}`,
      `bytes ${2 * MiB}-${2 * MiB + 4}/${CLIP.length}`,
      `bytes ${CLIP.length - 3}-${CLIP.length - 1}/${CLIP.length}`,
    ]);
    expectBytes(parts[0]!.body, CLIP.subarray(0, 20));
    expectBytes(parts[1]!.body, CLIP.subarray(2 * MiB, 2 * MiB + 5));
    expectBytes(parts[2]!.body, CLIP.subarray(CLIP.length - 3));
    expect(parts.every((p) => p.type === 'video/mp4')).toBe(true);
  });

  it('answers ranges that share one chunk of a slice, as curl -r 0-9,100-109 asks', async () => {
    const answer = await range('/media/clip.bin', 'bytes=0-9,100-109');
    expect(answer.status).toBe(206);
    expect(Number(answer.headers.get('content-length'))).toBe(answer.body.byteLength);
    const boundary = (answer.headers.get('content-type') ?? '').split('boundary=')[1]!.replace(/"/g, '');
    const parts = multipartParts(answer.body, boundary);
    expectBytes(parts[0]!.body, CLIP.subarray(0, 10));
    expectBytes(parts[1]!.body, CLIP.subarray(100, 110));
    // The same on an object small enough to be cached whole.
    await f.origin.putObject('small.txt', CLIP.subarray(0, 1000));
    const small = await range('/small.txt', 'bytes=0-9,100-109');
    const smallParts = multipartParts(
      small.body,
      (small.headers.get('content-type') ?? '').split('boundary=')[1]!.replace(/"/g, ''),
    );
    expectBytes(smallParts[1]!.body, CLIP.subarray(100, 110));
  });

  it('answers an unsatisfiable range with 416 and Content-Range: bytes */size', async () => {
    const answer = await range('/media/clip.bin', `bytes=${CLIP.length}-`);
    expect(answer.status).toBe(416);
    expect(answer.headers.get('content-range')).toBe(`bytes */${CLIP.length}`);
  });

  it('ignores a syntactically invalid Range and sends the whole body with 200', async () => {
    for (const value of ['bytes=abc', 'bytes=5-1', 'items=0-5', 'bytes 0-5']) {
      const answer = await range('/media/clip.bin', value);
      expect(answer.status, value).toBe(200);
      expect(answer.body.byteLength).toBe(CLIP.length);
    }
  });

  it('honours If-Range: a matching strong ETag or exact Last-Modified gives 206, anything else 200', async () => {
    const head = await f.get('/media/clip.bin', { method: 'HEAD' });
    const etag = head.headers.get('etag')!;
    const lastModified = head.headers.get('last-modified')!;
    expect((await range('/media/clip.bin', 'bytes=0-9', { 'if-range': etag })).status).toBe(206);
    expect((await range('/media/clip.bin', 'bytes=0-9', { 'if-range': lastModified })).status).toBe(206);
    const stale = await range('/media/clip.bin', 'bytes=0-9', { 'if-range': '"not-the-etag"' });
    expect(stale.status).toBe(200);
    expect(stale.body.byteLength).toBe(CLIP.length);
    expect((await range('/media/clip.bin', 'bytes=0-9', { 'if-range': `W/${etag}` })).status).toBe(200);
  });

  it('answers HEAD with the headers of GET, Accept-Ranges and the exact length, and no body', async () => {
    const head = await f.get('/media/clip.bin', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect(head.headers.get('content-length')).toBe(String(CLIP.length));
    expect(head.headers.get('content-type')).toBe('video/mp4');
    expect(head.body.byteLength).toBe(0);
  });
});

describe('what slicing costs the origin', () => {
  it('fetches only the slices a range in the middle of a cold object touches', async () => {
    await f.origin.putObject('media/cold.bin', patternBytes(11, 6 * MiB));
    f.tap.clear();
    const answer = await range('/media/cold.bin', `bytes=${2.5 * MiB}-${3.5 * MiB}`);
    expect(answer.status).toBe(206);
    expect(originGets()).toEqual([
      { range: `bytes=${2 * MiB}-${3 * MiB - 1}` },
      { range: `bytes=${3 * MiB}-${4 * MiB - 1}` },
    ]);
    expect(f.tap.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('makes no origin request for a second range over slices already stored', async () => {
    await range('/media/clip.bin', `bytes=${MiB}-${2 * MiB}`);
    await settle();
    f.tap.clear();
    const again = await range('/media/clip.bin', `bytes=${MiB + 500}-${2 * MiB - 500}`);
    expectBytes(again.body, CLIP.subarray(MiB + 500, 2 * MiB - 499));
    expect(f.tap.requests).toEqual([]);
    expect(cacheStatus(again).at(-1)).toEqual([
      'tiercache-edge',
      'hit',
      expect.stringMatching(/^ttl=/),
      'detail="slices 1/1"',
    ]);
  });

  it('reports per tier that a response was served from slices, and how many were hits', async () => {
    await f.origin.putObject('media/report.bin', patternBytes(13, 3 * MiB));
    const cold = await f.get('/media/report.bin');
    const [shield, edge] = cacheStatus(cold);
    // The shield fetched the first slice with discovery; the edge had learnt of all three
    // (read-ahead 4) before the first byte went out: none was there. Of the three asked of the
    // shield by then, only discovery's answer was in (docs/caching.md#cache-status-on-a-sliced-object).
    expect(shield).toEqual(['tiercache-shield', 'fwd=uri-miss', 'stored', 'detail="slices 0/1 of 3"']);
    expect(edge).toEqual(['tiercache-edge', 'fwd=uri-miss', 'stored', 'detail="slices 0/3"']);
    await settle();
    const warm = await f.get('/media/report.bin');
    expect(cacheStatus(warm).at(-1)).toEqual([
      'tiercache-edge',
      'hit',
      expect.stringMatching(/^ttl=/),
      'detail="slices 3/3"',
    ]);
    expect(cold.headers.get('server-timing')).toMatch(
      /^origin;dur=[\d.]+;desc="1 slice", shield-slice;dur=[\d.]+;desc="1 slice", shield;dur=[\d.]+;desc="1 slice", edge-slice;dur=[\d.]+, edge;dur=[\d.]+$/,
    );
  });
});

describe('consistency when the object changes between slice fetches', () => {
  it('restarts from fresh metadata when the change is seen before the first byte', async () => {
    const v1 = patternBytes(21, 4 * MiB);
    const v2 = patternBytes(22, 4 * MiB);
    await f.origin.putObject('media/restart.bin', v1);
    await range('/media/restart.bin', 'bytes=0-9');
    await settle();
    await f.origin.putObject('media/restart.bin', v2);
    const answer = await range('/media/restart.bin', `bytes=${2 * MiB}-${2 * MiB + 99}`);
    expect(answer.status).toBe(206);
    expectBytes(answer.body, v2.subarray(2 * MiB, 2 * MiB + 100));
    expect(answer.headers.get('etag')).toBe(`"${createMd5(v2)}"`);
  });

  it('aborts the transfer when the change is seen after the first byte, never mixing versions', async () => {
    const v1 = patternBytes(31, 4 * MiB);
    const v2 = patternBytes(32, 4 * MiB);
    await f.origin.putObject('media/abort.bin', v1);
    await range('/media/abort.bin', 'bytes=0-9');
    await settle();
    await f.origin.putObject('media/abort.bin', v2);
    const response = await fetch(new URL('/media/abort.bin', f.stack.url));
    expect(response.status).toBe(200);
    const received = await drain(response.body);
    expect(received.length).toBeLessThan(v1.length);
    expect(received.error).toBeDefined();
    // What did arrive is the start of v1, never bytes of v2.
    expect(received.sha256).toBe(sha256(v1.subarray(0, received.length)));
    const after = await f.get('/media/abort.bin');
    expect(sha256(after.body)).toBe(sha256(v2));
  });
});

/** Byte equality without a deep diff of megabytes. */
function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.byteLength).toBe(expected.byteLength);
  expect(Buffer.compare(actual, expected)).toBe(0);
}

function createMd5(bytes: Uint8Array): string {
  return createHash('md5').update(bytes).digest('hex');
}

function multipartParts(
  body: Uint8Array,
  boundary: string,
): { type: string | undefined; range: string | undefined; body: Uint8Array }[] {
  const text = Buffer.from(body).toString('latin1');
  return text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((chunk) => {
      const part = chunk.replace(/^\r\n/, '').replace(/\r\n$/, '');
      const split = part.indexOf('\r\n\r\n');
      const headers = Object.fromEntries(
        part
          .slice(0, split)
          .split('\r\n')
          .map((line) => {
            const colon = line.indexOf(':');
            return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
          }),
      );
      return {
        type: headers['content-type'],
        range: headers['content-range'],
        body: new Uint8Array(Buffer.from(part.slice(split + 4), 'latin1')),
      };
    });
}
