// The shaper's two latencies (bench/setup/shaper.ts): a latency counted from the request hides what lies behind it, one counted from the response adds to it,
// so that a chain of links (the topology runner's client → edge → shield → origin) costs the sum of its round trips,
// as the floor a run reports beside its first bytes assumes (bench/sim/topology.ts firstByteFloorMs). Only what no
// load can cause is asserted: no first byte before what the links hold it for.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Shaper, startShaper } from '../../../bench/setup/shaper.ts';

const LINK_MS = 60;
let origin: Server;
let originUrl: string;
const shapers: Shaper[] = [];

beforeAll(async () => {
  origin = createServer((_request, response) => response.end('twelve bytes'));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(shapers.map((shaper) => shaper.close()));
  await new Promise((resolve) => origin.close(resolve));
});

/** Two shaped links in a row in front of the origin, the far one first. */
async function chain(latency: 'request' | 'response'): Promise<string> {
  let target = originUrl;
  for (let link = 0; link < 2; link += 1) {
    const shaper = await startShaper({ target, firstByteLatencyMs: LINK_MS, latencyFrom: latency });
    shapers.push(shaper);
    target = shaper.url;
  }
  return target;
}

async function firstByteMs(url: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const answer = await fetch(url);
  const ms = performance.now() - started;
  return { ms, body: await answer.text() };
}

describe('a chain of shaped links', () => {
  it('adds its round trips when each counts from the response', async () => {
    const { ms, body } = await firstByteMs(await chain('response'));
    expect(body).toBe('twelve bytes');
    expect(ms).toBeGreaterThanOrEqual(2 * LINK_MS - 1);
  });

  it('holds the first byte at least one link long when each counts from the request', async () => {
    const { ms, body } = await firstByteMs(await chain('request'));
    expect(body).toBe('twelve bytes');
    expect(ms).toBeGreaterThanOrEqual(LINK_MS - 1);
  });
});
