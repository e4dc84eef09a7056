// The stats store sharded, through the real workers (shared/stats/store-shards.ts): two edge isolates and the shield
// flush every record (STATS_FLUSH_MS 0), each flush to the next of STATS_SHARDS Durable Objects, and stats.json, read
// through either edge, merges every shard to exactly the requests made: per tier, in bytes, and with the tiers agreeing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { STATS_SHARDS } from '../../shared/stats/store-shards.ts';
import { type Answer, type Fixture, request, settle, startFixture } from './fixture.ts';

const STATS_TOKEN = 'stats-shards-token';
const SIZES: Record<string, number> = { 'a.txt': 1000, 'b.txt': 2345, 'c.txt': 77 };
type ShardedStats = StatsJson & { store: { shards: number; shardsWithCounts: number } };

let f: Fixture;
let second: string;

beforeAll(async () => {
  f = await startFixture({ STATS_TOKEN, STATS_FLUSH_MS: '0' }, { secondEdge: true });
  second = f.stack.secondEdgeUrl ?? '';
  for (const [key, size] of Object.entries(SIZES)) {
    await f.origin.putObject(key, new Uint8Array(size).fill(key.charCodeAt(0)), { 'cache-control': 'max-age=600' });
  }
});
afterAll(() => f?.close());

async function stats(base: string): Promise<ShardedStats> {
  const answer = await request(new URL('/__tiercache/stats.json', base), {
    headers: { authorization: `Bearer ${STATS_TOKEN}` },
  });
  expect(answer.status, answer.text).toBe(200);
  return JSON.parse(answer.text) as ShardedStats;
}

/**
 * stats.json once it counts `edgeRequests` at the edge and the shield's flushes (made in its waitUntil) have caught up
 * with what the edges fetched; as it last was after a few seconds otherwise (the test's assertions then say what is off).
 */
async function settledStats(base: string, edgeRequests: number): Promise<ShardedStats> {
  let view = await stats(base);
  for (let i = 0; i < 50; i++) {
    const { edge, shield } = view.tiers;
    if (edge.totals.requests === edgeRequests && shield.totals.bytesSent === edge.totals.bytesFromNextHop) break;
    await settle(100);
    view = await stats(base);
  }
  return view;
}

describe('stats.json merges every shard of the store to exact totals', () => {
  const answers: Answer[] = [];

  it('counts every request made through two edge isolates and the shield, whichever shards their flushes reached', async () => {
    const paths = ['/a.txt', '/b.txt', '/a.txt', '/c.txt', '/b.txt', '/a.txt'];
    for (const [i, path] of paths.entries()) {
      const answer = await request(new URL(path, i % 2 === 0 ? f.stack.url : second));
      expect(answer.status).toBe(200);
      answers.push(answer);
    }
    const view = await settledStats(f.stack.url, answers.length);
    const sent = answers.reduce((sum, answer) => sum + answer.body.byteLength, 0);
    expect(view.tiers.edge.totals.requests).toBe(answers.length);
    expect(view.tiers.edge.totals.bytesSent).toBe(sent);
    // The tiers agree: every byte the shield sent, an edge fetched; the origin sent the shield each object once.
    expect(view.tiers.shield.totals.bytesSent).toBe(view.tiers.edge.totals.bytesFromNextHop);
    expect(view.tiers.shield.totals.bytesFromOrigin).toBe(Object.values(SIZES).reduce((a, b) => a + b, 0));
    // Each isolate walks the shards flush by flush: the counts lie in several, and the reader asked all of them.
    expect(view.store.shards).toBe(STATS_SHARDS);
    expect(view.store.shardsWithCounts).toBeGreaterThanOrEqual(2);
  });

  it('answers the same totals through the other edge isolate: the reader merges, whichever isolate reads', async () => {
    const first = await settledStats(f.stack.url, answers.length);
    const other = await settledStats(second, answers.length);
    expect(other.tiers.edge.totals).toEqual(first.tiers.edge.totals);
    expect(other.tiers.shield.totals).toEqual(first.tiers.shield.totals);
    expect(other.store.shardsWithCounts).toBe(first.store.shardsWithCounts);
  });
});
