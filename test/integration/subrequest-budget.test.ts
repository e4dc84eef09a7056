// Objects with more slices than one request may make subrequests (Workers: 50 on the free
// plan) must still be served whole: the edge falls back to spans once the budget runs low.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deterministicBytes, expectedSha256 } from '../../local/assets.ts';
import { drain } from './bytes.ts';
import { type Fixture, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const SIZE = 120 * MiB;
let f: Fixture;
let expected: string;

beforeAll(async () => {
  f = await startFixture({ SLICE_SIZE: '1MiB', SUBREQUEST_LIMIT: '50' });
  await f.origin.putObject('many-slices.bin', deterministicBytes(3, SIZE), { 'content-length': String(SIZE) });
  expected = await expectedSha256(3, SIZE);
});
afterAll(() => f?.close());

describe('an object of 120 slices with a budget of 50 subrequests', () => {
  it('is served whole, each slice fetched from the origin once', async () => {
    const response = await fetch(new URL('/many-slices.bin', f.stack.url));
    const received = await drain(response.body);
    expect(received.error).toBeUndefined();
    expect(received.sha256).toBe(expected);
    const ranges = f.tap.requests.filter((r) => r.method === 'GET').map((r) => r.headers.range);
    expect(new Set(ranges).size).toBe(120);
    expect(ranges).toHaveLength(120);
  });

  it('is served whole again without the origin', async () => {
    await settle(300);
    f.tap.clear();
    const response = await fetch(new URL('/many-slices.bin', f.stack.url));
    expect((await drain(response.body)).sha256).toBe(expected);
    expect(f.tap.requests).toEqual([]);
  });
});
