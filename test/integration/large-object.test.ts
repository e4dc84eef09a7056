// A large object through both tiers with the default slicing (8 MiB slices): downloaded
// whole, byte for byte, cold and then warm.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deterministicBytes, expectedSha256 } from '../../local/assets.ts';
import { drain } from './bytes.ts';
import { cacheStatus, type Fixture, settle, startFixture } from './fixture.ts';

const SIZE = 200 * 1024 * 1024;
const SEED = 0x5eed;
let f: Fixture;
let expected: string;

beforeAll(async () => {
  f = await startFixture();
  await f.origin.putObject('large/200MiB.bin', deterministicBytes(SEED, SIZE), { 'content-length': String(SIZE) });
  expected = await expectedSha256(SEED, SIZE);
});
afterAll(() => f?.close());

describe('a 200 MiB object', () => {
  it('downloads whole and byte-identical through both tiers, cold', async () => {
    f.tap.clear();
    const response = await fetch(new URL('/large/200MiB.bin', f.stack.url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(SIZE));
    const received = await drain(response.body);
    expect(received.error).toBeUndefined();
    expect(received.length).toBe(SIZE);
    expect(received.sha256).toBe(expected);
    // 25 slices of 8 MiB, each fetched from the origin once, as a ranged GET.
    const gets = f.tap.requests.filter((r) => r.method === 'GET');
    expect(gets).toHaveLength(25);
    expect(gets.every((r) => /^bytes=\d+-\d+$/.test(r.headers.range ?? ''))).toBe(true);
  });

  it('downloads again from the edge alone, byte-identical', async () => {
    await settle(500);
    f.tap.clear();
    const response = await fetch(new URL('/large/200MiB.bin', f.stack.url));
    const received = await drain(response.body);
    expect(received.sha256).toBe(expected);
    expect(f.tap.requests).toEqual([]);
    expect(
      cacheStatus({ status: response.status, headers: response.headers, body: new Uint8Array(), text: '' }).at(-1)?.[1],
    ).toBe('hit');
  });
});
