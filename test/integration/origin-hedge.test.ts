// A hedged first byte (shield/origin/endpoint-race.ts), through the real workers: three endpoints in front of one S3
// server (s3rver, verifying every signature), each a tap (test/local/origin-tap.ts); the preferred one holds its head
// back HOLD_MS on every other object. With ORIGIN_HEDGE on, those reads are asked of the next endpoint once the wait
// is over (50 ms until enough first bytes are known, 1 s at most): every client gets the right bytes well before the hold ends, the
// held request is given up at once, and stats.json counts each hedge. With it off, the client waits the hold out.
// Behaviour is asserted against the hold, generously, never a tight timing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Origin, startS3Origin } from '../../local/origin.ts';
import { type Stack, startWorkers } from '../../local/workers.ts';
import type { StatsJson } from '../../shared/stats/stats-json.ts';
import { type RecordedRequest, startTap, type Tap } from '../local/origin-tap.ts';
import { request } from './fixture.ts';

/** How long the preferred endpoint holds a head back: far past the longest wait (1 s), far short of the timeout. */
const HOLD_MS = 4_000;
const ORIGIN_TIMEOUT_MS = 8_000;
const OBJECTS = 6;
const STATS_TOKEN = 'hedge-stats-token';

let s3: S3Origin;
const objects = new Map<string, Uint8Array>();
/** The objects the preferred endpoint holds: every other one (within the cap of hedges, 4 banked). */
const held = (path: string): boolean => /object-[135]\.bin/.test(path);

beforeAll(async () => {
  s3 = await startS3Origin();
  for (let i = 0; i < OBJECTS; i++)
    objects.set(
      `object-${i}.bin`,
      Uint8Array.from({ length: 50_000 + i * 1000 }, (_, at) => (at * 13 + i) & 0xff),
    );
  for (const [key, bytes] of objects) await s3.putObject(key, bytes);
});
afterAll(async () => {
  await s3?.close();
});

interface Run {
  /** Each read's time to its whole body (ms), by key. */
  times: Map<string, number>;
  /** Requests each tap saw, in ORIGIN_URL's order. */
  seen: RecordedRequest[][];
  /** When each of the preferred endpoint's requests arrived. */
  arrived: Map<RecordedRequest, number>;
  /** stats.json after the reads. */
  stats: StatsJson;
}

/** Reads every object once, cold, through a fresh stack over fresh taps, hedging as `hedge` says; checks every byte. */
async function readAll(hedge: 'on' | 'off'): Promise<Run> {
  const taps: Tap[] = await Promise.all([startTap(s3.url), startTap(s3.url), startTap(s3.url)]);
  const arrived = new Map<RecordedRequest, number>();
  taps[0]?.faults((record) => {
    arrived.set(record, Date.now());
    return held(record.path) ? { kind: 'hold', ms: HOLD_MS } : undefined;
  });
  let stack: Stack | undefined;
  try {
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 's3',
        ORIGIN_URL: taps.map((tap) => tap.url).join(' '),
        S3_BUCKET: s3.bucket,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        SHIELD_TOKEN: 'hedge-shield-token',
        ORIGIN_TIMEOUT_MS: String(ORIGIN_TIMEOUT_MS),
        ORIGIN_HEDGE: hedge,
        STATS_TOKEN,
        STATS_FLUSH_MS: '0',
      },
    });
    const times = new Map<string, number>();
    for (const [key, bytes] of objects) {
      const started = Date.now();
      const answer = await request(new URL(`/${key}?${hedge}`, stack.url));
      times.set(key, Date.now() - started);
      expect(answer.status, key).toBe(200);
      expect(Buffer.compare(Buffer.from(answer.body), Buffer.from(bytes)), key).toBe(0);
    }
    const statsAnswer = await request(new URL('/__tiercache/stats.json', stack.url), {
      headers: { authorization: `Bearer ${STATS_TOKEN}` },
    });
    const stats = JSON.parse(statsAnswer.text) as StatsJson;
    return { times, seen: taps.map((tap) => [...tap.requests]), arrived, stats };
  } finally {
    await stack?.dispose();
    await Promise.all(taps.map((tap) => tap.close()));
  }
}

describe('an origin at three endpoints, the preferred one holding some first bytes back', () => {
  let on: Run;
  let off: Run;
  // Known once the objects are made (beforeAll above).
  let heldKeys: string[] = [];

  beforeAll(async () => {
    heldKeys = [...objects.keys()].filter((key) => held(`/${key}`));
    on = await readAll('on');
    off = await readAll('off');
    const line = (run: Run, name: string): string =>
      `| ${name} | ${[...run.times.values()].join(', ')} | ${run.seen.map((each) => each.length).join(', ')} |`;
    console.log(
      [
        '| ORIGIN_HEDGE | ms per read, in order | requests seen (A, B, C) |',
        '|---|---|---|',
        line(on, 'on'),
        line(off, 'off'),
      ].join('\n'),
    );
  }, 120_000);

  it('on: a held read is answered by the next endpoint long before the hold ends', () => {
    expect(heldKeys.length).toBe(3);
    for (const key of heldKeys) expect(on.times.get(key), key).toBeLessThan(HOLD_MS - 1_000);
    const [, b = [], c = []] = on.seen;
    // Each held read hedged onto B; C, the third, never needed.
    for (const key of heldKeys)
      expect(
        b.some((record) => record.path.includes(key)),
        key,
      ).toBe(true);
    expect(c).toEqual([]);
  });

  it('on: the held request is given up at once, not waited out', () => {
    const [a = []] = on.seen;
    const heldRequests = a.filter((record) => held(record.path));
    expect(heldRequests.length).toBe(heldKeys.length);
    for (const record of heldRequests) {
      expect(record.gone, record.path).toBeDefined();
      expect((record.gone ?? 0) - (on.arrived.get(record) ?? 0), record.path).toBeLessThan(HOLD_MS - 1_000);
    }
  });

  it('on: each hedge is counted, and priced with the bytes charged to the cancelled requests', () => {
    const counted = on.stats.cost.windowOperations;
    expect(counted.hedgesStarted).toBeGreaterThanOrEqual(heldKeys.length);
    expect(counted.hedgesWon).toBeGreaterThanOrEqual(heldKeys.length);
    expect(counted.hedgesWon + counted.hedgesLost).toBeLessThanOrEqual(counted.hedgesStarted);
    expect(counted.hedgeBytes).toBeGreaterThan(0);
    // Never more than a round trip's worth (64 KiB) per hedge, never more than the answer: here the objects' bytes.
    expect(counted.hedgeBytes).toBeLessThanOrEqual(counted.hedgesStarted * 64 * 1024);
  });

  it('off: the client waits the hold out, and no other endpoint is asked', () => {
    for (const key of heldKeys) expect(off.times.get(key), key).toBeGreaterThanOrEqual(HOLD_MS - 50);
    expect(off.seen[1]).toEqual([]);
    expect(off.seen[2]).toEqual([]);
    expect(off.stats.cost.windowOperations.hedgesStarted).toBe(0);
  });
});
