import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_AHEAD } from '../../shared/tier/slice-reader/demand.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Answer, type Fixture, request, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const PURGE_TOKEN = 'test-purge-token';
// Sliced at 1 MiB; kept whole up to 3 MiB.
const SMALL = patternBytes(11, 2.5 * MiB);
const LARGE = patternBytes(12, 5.5 * MiB);
let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ SLICE_SIZE: '1MiB', WHOLE_COPY_MAX: '3MiB', PURGE_TOKEN });
  await f.origin.putObject('clip.bin', SMALL, { 'content-type': 'video/mp4' });
  await f.origin.putObject('large.bin', LARGE, { 'content-type': 'video/mp4' });
});
afterAll(() => f?.close());

const edgeDetail = (answer: Answer): string => (answer.headers.get('cache-status') ?? '').split(',').at(-1) ?? '';
const originGets = (path: string): number =>
  f.tap.requests.filter((r) => r.method === 'GET' && r.path.includes(path)).length;

/** Cold read, then a read from the edge's slices (which makes the copy), then time to store it. */
async function warmUp(path: string): Promise<Answer[]> {
  const answers = [await f.get(path), await f.get(path)];
  await settle(400);
  return answers;
}

describe('the edge keeps a sliced object whole for full reads (WHOLE_COPY_MAX)', () => {
  it('makes the copy once a full read came from its own slices, then passes it through, byte for byte', async () => {
    const [cold, fromSlices] = await warmUp('/clip.bin');
    expect(edgeDetail(cold!)).not.toMatch(/whole copy/);
    expect(edgeDetail(fromSlices!)).toMatch(/hit; ttl=\d+; detail="slices 3\/3"/);
    const gets = originGets('clip.bin');

    const whole = await f.get('/clip.bin');
    expect(whole.status).toBe(200);
    expect(edgeDetail(whole)).toMatch(/tiercache-edge; hit; ttl=\d+; detail="whole copy"/);
    expect(whole.headers.get('content-length')).toBe(String(SMALL.length));
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('etag')).toBe(fromSlices!.headers.get('etag'));
    expect([...whole.headers.keys()].filter((name) => name.startsWith('x-tiercache-'))).toEqual([]);
    expect(sha256(whole.body)).toBe(sha256(SMALL));
    expect(originGets('clip.bin')).toBe(gets);
  });

  it("answers a browser's bytes=0- from the copy too, as a 206 of every byte", async () => {
    const opening = await f.get('/clip.bin', { headers: { range: 'bytes=0-' } });
    expect(opening.status).toBe(206);
    expect(edgeDetail(opening)).toMatch(/detail="whole copy"/);
    expect(opening.headers.get('content-range')).toBe(`bytes 0-${SMALL.length - 1}/${SMALL.length}`);
    expect(opening.headers.get('content-length')).toBe(String(SMALL.length));
    expect(opening.headers.get('cache-control')).toMatch(/no-transform/);
    expect(sha256(opening.body)).toBe(sha256(SMALL));
  });

  it('still answers ranges from slices, and conditions before any body', async () => {
    const ranged = await f.get('/clip.bin', { headers: { range: `bytes=${MiB - 5}-${MiB + 4}` } });
    expect(ranged.status).toBe(206);
    expect(edgeDetail(ranged)).toMatch(/slices/);
    expect(sha256(ranged.body)).toBe(sha256(SMALL.subarray(MiB - 5, MiB + 5)));

    const etag = ranged.headers.get('etag') ?? '';
    const notModified = await f.get('/clip.bin', { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.body.byteLength).toBe(0);
    const failed = await f.get('/clip.bin', { headers: { 'if-match': '"another"' } });
    expect(failed.status).toBe(412);
  });

  it('never copies an object larger than WHOLE_COPY_MAX', async () => {
    await warmUp('/large.bin');
    const again = await f.get('/large.bin');
    // From slices (the first and the FIRST_AHEAD its reader had earned were looked up before the first byte), not a copy.
    const looked = 1 + FIRST_AHEAD;
    expect(edgeDetail(again)).toContain(`detail="slices ${looked}/${looked} of 6"`);
    expect(sha256(again.body)).toBe(sha256(LARGE));
  });

  it("serves a new version after a purge, never the old version's copy", async () => {
    await f.origin.putObject('versioned.bin', SMALL, { 'content-type': 'video/mp4' });
    await warmUp('/versioned.bin');
    expect(edgeDetail(await f.get('/versioned.bin'))).toMatch(/whole copy/);

    const changed = patternBytes(13, 2.5 * MiB);
    await f.origin.putObject('versioned.bin', changed, { 'content-type': 'video/mp4' });
    const purged = await request(new URL('/__tiercache/purge', f.stack.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: ['/versioned.bin'] }),
    });
    expect(purged.status).toBe(200);

    const fresh = await f.get('/versioned.bin');
    expect(edgeDetail(fresh)).not.toMatch(/whole copy/);
    expect(sha256(fresh.body)).toBe(sha256(changed));
    // The new version gets a copy of its own, with its own bytes.
    await f.get('/versioned.bin');
    await settle(400);
    const copied = await f.get('/versioned.bin');
    expect(edgeDetail(copied)).toMatch(/whole copy/);
    expect(sha256(copied.body)).toBe(sha256(changed));
  });
});
