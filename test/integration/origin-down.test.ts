// With the origin stopped, every object requested before is still served within its
// stale-if-error window (RFC 5861 §4), whole, by range and sliced; nothing else is.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patternBytes, sha256 } from './bytes.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
/** Spans three 1 MiB slices. */
const LARGE = patternBytes(7, 2 * MiB + 123_456);

let f: Fixture;
/** A stack whose stale-if-error window is 2 s. */
let short: Fixture;
/** Both stacks judge freshness by this clock, so the tests move time instead of waiting for it. */
const clock = new FakeClock();

beforeAll(async () => {
  // No stale-while-revalidate: a stale copy is served only in place of an origin error.
  [f, short] = await Promise.all([
    startFixture({ SLICE_SIZE: '1MiB', STALE_WHILE_REVALIDATE: '0' }, { clock }),
    startFixture({ SLICE_SIZE: '1MiB', STALE_WHILE_REVALIDATE: '0', STALE_IF_ERROR: '120' }, { clock }),
  ]);
});
afterAll(async () => {
  await Promise.all([f?.close(), short?.close()]);
});

interface Case {
  name: string;
  path: string;
  range?: string;
  status: number;
  bytes: Uint8Array;
  contentRange?: string;
}

const small = (i: number): Uint8Array => new TextEncoder().encode(`small object ${i}\n`.repeat(i + 1));
const CASES: Case[] = [
  ...[0, 1, 2].map((i): Case => ({ name: `small object ${i}`, path: `/small-${i}.txt`, status: 200, bytes: small(i) })),
  {
    name: 'a range of a small object',
    path: '/small-2.txt',
    range: 'bytes=3-9',
    status: 206,
    bytes: small(2).slice(3, 10),
    contentRange: `bytes 3-9/${small(2).byteLength}`,
  },
  { name: 'a sliced object, whole', path: '/large.bin', status: 200, bytes: LARGE },
  {
    name: 'a range of a sliced object across two slices',
    path: '/large.bin',
    range: `bytes=${MiB - 100}-${MiB + 99}`,
    status: 206,
    bytes: LARGE.slice(MiB - 100, MiB + 100),
    contentRange: `bytes ${MiB - 100}-${MiB + 99}/${LARGE.byteLength}`,
  },
  {
    name: 'a range of a sliced object in its last slice',
    path: '/large.bin',
    range: `bytes=${2 * MiB + 5}-`,
    status: 206,
    bytes: LARGE.slice(2 * MiB + 5),
    contentRange: `bytes ${2 * MiB + 5}-${LARGE.byteLength - 1}/${LARGE.byteLength}`,
  },
];

const get = (fixture: Fixture, c: Case): Promise<Answer> =>
  fixture.get(c.path, c.range ? { headers: { range: c.range } } : undefined);

function expectServed(answer: Answer, c: Case): void {
  expect(answer.status, c.name).toBe(c.status);
  expect(answer.body.byteLength, c.name).toBe(c.bytes.byteLength);
  expect(sha256(answer.body), c.name).toBe(sha256(c.bytes));
  if (c.contentRange) expect(answer.headers.get('content-range'), c.name).toBe(c.contentRange);
}

async function seed(fixture: Fixture, cacheControl: string): Promise<void> {
  for (const i of [0, 1, 2])
    await fixture.origin.putObject(`small-${i}.txt`, small(i), {
      'cache-control': cacheControl,
      'content-type': 'text/plain',
    });
  await fixture.origin.putObject('large.bin', LARGE, {
    'cache-control': cacheControl,
    'content-type': 'application/octet-stream',
  });
  await fixture.origin.putObject('never-requested.txt', 'nobody asked', { 'cache-control': cacheControl });
}

function expectOriginError(answer: Answer): void {
  expect([502, 504]).toContain(answer.status);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(answer.text.length).toBeGreaterThan(0);
  expect(answer.text.length).toBeLessThan(200);
}

/** What each case got once the origin was stopped, for the checks that follow. */
const whileDown = new Map<Case, Answer>();

describe('with the origin stopped', () => {
  it('still serves every object requested before, whole and by range, within its stale-if-error window (RFC 5861 §4)', async () => {
    await seed(f, 'max-age=60');
    for (const c of CASES) expectServed(await get(f, c), c);
    await settle();
    clock.advance(61);
    await f.origin.close();
    for (const c of CASES) {
      const answer = await get(f, c);
      whileDown.set(c, answer);
      expectServed(answer, c);
      expect(cacheStatus(answer).at(-1), c.name).toEqual(
        expect.arrayContaining(['tiercache-edge', 'fwd=stale', 'fwd-status=502']),
      );
    }
  });

  it('says in Cache-Status that a stale object stood in for the error (detail=stale-if-error)', () => {
    for (const c of CASES.filter((c) => c.path !== '/large.bin'))
      expect(cacheStatus(whileDown.get(c)!).at(-1), c.name).toContain('detail=stale-if-error');
  });

  // RFC 9211 §2.8 allows one detail per member: for a sliced object it says why the stale copy
  // was used, then how many slices were hits.
  it('says stale-if-error in the detail for a sliced object too, whole and by range', () => {
    for (const c of CASES.filter((c) => c.path === '/large.bin')) {
      const detail = cacheStatus(whileDown.get(c)!)
        .at(-1)
        ?.find((part) => part.startsWith('detail='));
      expect.soft(detail, c.name).toMatch(/^detail="stale-if-error slices \d+\/\d+/);
    }
  });

  it('answers an object never requested before with 502 or 504 and a short plain message', async () => {
    // Runs after the origin was stopped above.
    expectOriginError(await f.get('/never-requested.txt'));
  });

  it('answers 502 or 504 once past the stale-if-error window', async () => {
    await seed(short, 'max-age=60');
    for (const c of CASES) expectServed(await get(short, c), c);
    await settle();
    clock.advance(61);
    await short.origin.close();
    // Within the 120 s window: still served.
    const within = await get(short, CASES[0]!);
    expectServed(within, CASES[0]!);
    expect(cacheStatus(within).at(-1)).toEqual(expect.arrayContaining(['fwd=stale', 'detail=stale-if-error']));
    clock.advance(121);
    for (const c of CASES) expectOriginError(await get(short, c));
  });
});
