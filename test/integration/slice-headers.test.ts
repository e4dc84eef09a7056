// What a sliced object's answer says of this request at both tiers (RFC 9211 Cache-Status, Server-Timing): the
// shield's member and metrics are those of the slices this request asked it for, and a 304 keeps the shield's member.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceRequestPath } from '../../shared/hop/slice-protocol.ts';
import { patternBytes } from './bytes.ts';
import { type Answer, cacheStatus, FakeClock, type Fixture, SHIELD_TOKEN, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const clock = new FakeClock();
let f: Fixture;
let n = 0;

beforeAll(async () => {
  f = await startFixture({ SLICE_SIZE: '1MiB', STALE_WHILE_REVALIDATE: '0', STALE_IF_ERROR: '0' }, { clock });
});
afterAll(() => f?.close());

/** A new sliced object of `slices` MiB and a half at a path no other test uses. */
async function object(slices: number): Promise<string> {
  const key = `media/headers-${++n}.bin`;
  await f.origin.putObject(key, patternBytes(n, (slices - 0.5) * MiB), { 'cache-control': 'max-age=60' });
  return `/${key}`;
}
const range = (path: string, first: number, last = first): Promise<Answer> =>
  f.get(path, { headers: { range: `bytes=${first}-${last}` } });
/** The origin's GETs since the tap was cleared, as the ranges they asked for. */
const originRanges = (): (string | undefined)[] =>
  f.tap.requests.filter((r) => r.method === 'GET').map((r) => r.headers.range);
const member = (answer: Answer, cache: string): string[] | undefined =>
  cacheStatus(answer).find((candidate) => candidate[0] === cache);
const TTL = expect.stringMatching(/^ttl=\d+$/);
const D = '[\\d.]+';

describe('a slice miss (RFC 9211 §2: each member says how its cache handled this request)', () => {
  it("reports the shield's miss and the origin's time for a cold slice of a warm manifest, at both tiers", async () => {
    const path = await object(4);
    await range(path, 0, 9);
    await settle();
    f.tap.clear();
    const cold = await range(path, 3 * MiB, 3 * MiB + 9);
    expect(cold.status).toBe(206);
    expect(originRanges()).toEqual([`bytes=${3 * MiB}-${3.5 * MiB - 1}`]);
    // Not the member stored with the manifest (`fwd=uri-miss … slices 0/1`, the first request's): this one's.
    expect(member(cold, 'tiercache-shield')).toEqual([
      'tiercache-shield',
      'fwd=partial',
      TTL,
      'stored',
      'detail="slices 0/1"',
    ]);
    expect(member(cold, 'tiercache-edge')).toEqual([
      'tiercache-edge',
      'fwd=partial',
      TTL,
      'stored',
      'detail="slices 0/1"',
    ]);
    expect(cold.headers.get('server-timing')).toMatch(
      new RegExp(
        `^origin;dur=${D};desc="1 slice", shield-slice;dur=${D};desc="1 slice", shield;dur=${D};desc="1 slice", ` +
          `edge-slice;dur=${D}, edge;dur=${D}$`,
      ),
    );
  });

  it("reports the shield's hit, and no origin, for a slice the edge lacks and the shield holds", async () => {
    const path = await object(5);
    const first = await range(path, 0, 9);
    await settle();
    // The shield alone stores slice 4 (the edge's read-ahead would: a warm).
    const etag = first.headers.get('etag') ?? '';
    const warm = await fetch(
      new URL(
        sliceRequestPath({ span: { first: 4, last: 4 }, sliceSize: MiB, etag, warm: true }, path),
        f.stack.shieldUrl,
      ),
      { headers: { 'x-tiercache-credential': SHIELD_TOKEN } },
    );
    expect(await warm.text()).toMatch(/stored \d+$/);
    await settle();
    f.tap.clear();
    const answer = await range(path, 4 * MiB, 4 * MiB + 9);
    expect(answer.status).toBe(206);
    expect(originRanges()).toEqual([]);
    expect(member(answer, 'tiercache-shield')).toEqual([
      'tiercache-shield',
      'hit',
      TTL,
      'detail="slices 1/1"',
      'tiercache-store=cache-api',
    ]);
    expect(member(answer, 'tiercache-edge')).toEqual([
      'tiercache-edge',
      'fwd=partial',
      TTL,
      'stored',
      'detail="slices 0/1"',
    ]);
    expect(answer.headers.get('server-timing')).toMatch(
      new RegExp(
        `^shield-slice;dur=${D};desc="1 slice", shield;dur=${D};desc="1 slice", edge-slice;dur=${D}, edge;dur=${D}$`,
      ),
    );
  });

  it("reports the shield's miss on a full GET whose first slice is cold and the rest stored at the edge", async () => {
    const path = await object(3);
    await range(path, MiB, 3 * MiB - 1);
    await settle();
    f.tap.clear();
    const full = await f.get(path);
    expect(full.status).toBe(200);
    expect(full.body.byteLength).toBe(2.5 * MiB);
    expect(originRanges()).toEqual([`bytes=0-${MiB - 1}`]);
    expect(member(full, 'tiercache-shield')).toEqual([
      'tiercache-shield',
      'fwd=partial',
      TTL,
      'stored',
      'detail="slices 0/1"',
    ]);
    expect(member(full, 'tiercache-edge')).toEqual([
      'tiercache-edge',
      'fwd=partial',
      TTL,
      'stored',
      'detail="slices 2/3"',
    ]);
    expect(full.headers.get('server-timing')).toMatch(new RegExp(`^origin;dur=${D};desc="1 slice", `));
  });

  it("counts the slices asked of the shield when only some answers were in before the head: never the manifest's member", async () => {
    const path = await object(4);
    await range(path, 0, 9);
    await settle();
    f.tap.clear();
    const full = await f.get(path);
    expect(full.status).toBe(200);
    expect(originRanges().sort()).toEqual(
      [`bytes=${MiB}-${2 * MiB - 1}`, `bytes=${2 * MiB}-${3 * MiB - 1}`, `bytes=${3 * MiB}-${3.5 * MiB - 1}`].sort(),
    );
    const shield = member(full, 'tiercache-shield') ?? [];
    // Slice 0 is the edge's: the head goes out before the shield's answers for the slices asked by then (those its
    // reader had earned ahead, demand.ts) need be in. Those heard (C of A) were misses; the rest are counted as asked.
    const detail = shield.at(-1) ?? '';
    const [, heardText, askedText] = /^detail="slices 0\/(\d)(?: of (\d))?"$/.exec(detail) ?? [];
    const heard = Number(heardText ?? Number.NaN);
    const asked = askedText === undefined ? heard : Number(askedText);
    expect(heard).toBeGreaterThanOrEqual(0);
    expect(asked).toBeGreaterThanOrEqual(Math.max(1, heard));
    expect(asked).toBeLessThanOrEqual(3);
    expect(askedText !== undefined).toBe(heard < asked);
    expect(shield.slice(1, -1)).toEqual(heard === 0 ? [] : ['fwd=partial', TTL, 'stored']);
    expect(shield).not.toContain('fwd=uri-miss');
  });
});

describe("a 304 keeps the shield's member (RFC 9211 §2: the chain of caches stays visible)", () => {
  it('answered at the edge from its fresh manifest: the member the 200 carries', async () => {
    const path = await object(3);
    const first = await range(path, 0, 9);
    await settle();
    const hit = await range(path, 0, 9);
    const notModified = await f.get(path, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
    expect(notModified.status).toBe(304);
    expect(member(notModified, 'tiercache-shield')).toEqual(member(hit, 'tiercache-shield'));
    expect(member(notModified, 'tiercache-shield')).toEqual([
      'tiercache-shield',
      'fwd=uri-miss',
      'stored',
      'detail="slices 0/1"',
    ]);
    expect(member(notModified, 'tiercache-edge')).toEqual(['tiercache-edge', 'hit', TTL]);
  });

  it("answered by the shield, which revalidated at the origin: its member and the origin's time", async () => {
    const path = await object(3);
    const first = await range(path, 0, 9);
    await settle();
    clock.advance(61);
    f.tap.clear();
    const notModified = await f.get(path, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
    expect(notModified.status).toBe(304);
    const sent = f.tap.requests.filter((r) => r.method === 'GET');
    expect(sent.map((r) => r.status)).toEqual([304]);
    expect(member(notModified, 'tiercache-shield')).toEqual([
      'tiercache-shield',
      'fwd=stale',
      'fwd-status=304',
      'stored',
    ]);
    expect(member(notModified, 'tiercache-edge')).toEqual(['tiercache-edge', 'fwd=stale', 'fwd-status=304', 'stored']);
    expect(notModified.headers.get('server-timing')).toMatch(
      new RegExp(`^origin;dur=${D}, shield;dur=${D}, edge;dur=${D}$`),
    );
  });
});
