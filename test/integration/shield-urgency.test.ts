// The shield holds its warms (the edge reading ahead) while a request of its own waits for its first byte, as the
// edge's read-ahead waits for the edge's (shield/first-byte-urgency.ts, shield/slice-warm.ts): a download started now
// is not queued at the origin behind slices nobody waits for yet. Observed at the origin, in order, not timed.

import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sliceRequestPath } from '../../shared/hop/slice-protocol.ts';
import { patternBytes } from './bytes.ts';
import { type Fixture, SHIELD_TOKEN, startFixture, until } from './fixture.ts';

const MiB = 1024 * 1024;
/**
 * How long the origin holds the urgent slice's answer: under the warms' longest hold (URGENT_HOLD_MS, 250 ms, counted
 * from after the urgent request reached the origin), so a warm that waits is still waiting when it is let go.
 */
const ORIGIN_HOLD_MS = 120;
let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ SLICE_SIZE: '1MiB' });
});
afterAll(() => f?.close());

const shieldGet = (path: string): Promise<Response> =>
  fetch(new URL(path, f.stack.shieldUrl), { headers: { 'x-tiercache-credential': SHIELD_TOKEN } });

describe('warms at the shield while a request waits for its first byte', () => {
  it('starts no warm at the origin until the waiting slice request has its answer', async () => {
    await f.origin.putObject('media/ahead.bin', patternBytes(31, 3.5 * MiB));
    await f.origin.putObject('media/wanted.bin', patternBytes(32, 2.5 * MiB));
    // The object read ahead is known to the shield first (its first slice: discovery), as when the edge reads ahead.
    const first = await shieldGet(
      sliceRequestPath({ span: { first: 0, last: 0 }, sliceSize: MiB, etag: undefined }, '/media/ahead.bin'),
    );
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const etag = first.headers.get('etag') ?? '';
    expect(etag).not.toBe('');

    // The urgent request's answer is held at the origin a while; what else reaches the origin meanwhile is seen.
    let wantedReleased = false;
    const seen: { path: string; afterRelease: boolean }[] = [];
    f.tap.intercept(async (request) => {
      seen.push({ path: request.path, afterRelease: wantedReleased });
      if (!request.path.includes('wanted.bin')) return;
      await delay(ORIGIN_HOLD_MS);
      wantedReleased = true;
    });
    try {
      const wanted = shieldGet(
        sliceRequestPath({ span: { first: 0, last: 0 }, sliceSize: MiB, etag: undefined }, '/media/wanted.bin'),
      );
      await until(() => seen.some((s) => s.path.includes('wanted.bin')));
      expect(seen.some((s) => s.path.includes('wanted.bin'))).toBe(true);
      const warm = await shieldGet(
        sliceRequestPath({ span: { first: 2, last: 2 }, sliceSize: MiB, etag, warm: true }, '/media/ahead.bin'),
      );
      const answer = await wanted;
      expect(answer.status).toBe(200);
      expect(new Uint8Array(await answer.arrayBuffer())).toEqual(patternBytes(32, 2.5 * MiB).subarray(0, MiB));
      // The warm still stores its slice, once the urgent answer is out.
      expect(await warm.text()).toMatch(/stored \d+$/);
      const warmFetches = seen.filter((s) => s.path.includes('ahead.bin'));
      expect(warmFetches).toHaveLength(1);
      expect(warmFetches[0]?.afterRelease).toBe(true);
    } finally {
      f.tap.intercept(undefined);
    }
  });
});
