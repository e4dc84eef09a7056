// One origin at several endpoints (ORIGIN_URL listing them, shield/origin/failover-origin.ts), through the real
// workers: three endpoints in front of one S3 server (s3rver, verifying every signature), each a tap that can go wrong
// as a real gateway does (test/local/origin-tap.ts). The preferred one refuses connections, answers 500, holds its
// first byte far past ORIGIN_TIMEOUT_MS, or answers 429 SlowDown with Retry-After: 120; every client still gets the
// right bytes, from the next endpoint, and the one that failed is left alone for a while (its circuit open). The
// added time against the healthy case, and how many requests each endpoint saw, are printed for the record. Hedging
// (ORIGIN_HEDGE) is off here: what is tested is failing over; origin-hedge.test.ts tests hedging over the same taps.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/setup/free-port.ts';
import { type S3Origin, startS3Origin } from '../../local/origin.ts';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type OriginFault, startTap, type Tap } from '../local/origin-tap.ts';
import { request } from './fixture.ts';

/** Objects read in each case, each once, cold: small ones and one of two and a half slices. */
const SMALL = 6;
const SLICE = 1024 * 1024;
const ORIGIN_TIMEOUT_MS = 1_000;

let s3: S3Origin;
const objects = new Map<string, Uint8Array>();

beforeAll(async () => {
  s3 = await startS3Origin();
  for (let i = 0; i < SMALL; i++) objects.set(`small-${i}.txt`, new TextEncoder().encode(`object ${i}\n`.repeat(50)));
  objects.set(
    'large.bin',
    Uint8Array.from({ length: SLICE * 2.5 }, (_, i) => (i * 7 + (i >> 10)) & 0xff),
  );
  for (const [key, bytes] of objects) await s3.putObject(key, bytes);
});
afterAll(async () => {
  await s3?.close();
});

interface Run {
  /** Each read's time to its whole body (ms), in order. */
  times: number[];
  /** The edge's health answer after the reads: what it says of each endpoint. */
  endpoints: unknown;
  /** Requests each tap (endpoint) saw, in ORIGIN_URL's order; the refusing one saw none (it is no server). */
  seen: number[];
}

/** Reads every object once through a fresh stack whose ORIGIN_URL lists `endpoints`; checks every byte. */
async function readAll(endpoints: string[], taps: Tap[], prefix: string): Promise<Run> {
  let stack: Stack | undefined;
  try {
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 's3',
        ORIGIN_URL: endpoints.join(' '),
        S3_BUCKET: s3.bucket,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        SHIELD_TOKEN: 'failover-shield-token',
        SLICE_SIZE: '1MiB',
        ORIGIN_TIMEOUT_MS: String(ORIGIN_TIMEOUT_MS),
        ORIGIN_HEDGE: 'off',
      },
    });
    const times: number[] = [];
    for (const [key, bytes] of objects) {
      const started = Date.now();
      // A query of its own per case: each case's reads are cold at both tiers.
      const answer = await request(new URL(`/${key}?${prefix}`, stack.url));
      times.push(Date.now() - started);
      expect(answer.status, key).toBe(200);
      expect(answer.body.byteLength, key).toBe(bytes.byteLength);
      expect(Buffer.compare(Buffer.from(answer.body), Buffer.from(bytes)), key).toBe(0);
    }
    const health = (await request(new URL('/__tiercache/health', stack.url))).text;
    const said = (JSON.parse(health) as { originEndpoints?: unknown }).originEndpoints;
    return { times, seen: taps.map((tap) => tap.requests.length), endpoints: said };
  } finally {
    await stack?.dispose();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

describe('an origin at three endpoints, the preferred one failing', () => {
  const report: string[] = [];
  let healthy: Run;

  afterAll(() => {
    console.log(
      [
        '| preferred endpoint | reads | median ms | max ms | added median ms | requests seen (A, B, C) |',
        '|---|---|---|---|---|---|',
        ...report,
      ].join('\n'),
    );
  });

  async function taps(fault?: OriginFault): Promise<Tap[]> {
    const made = await Promise.all([startTap(s3.url), startTap(s3.url), startTap(s3.url)]);
    if (fault !== undefined) made[0]?.faults(() => fault);
    return made;
  }

  function record(name: string, run: Run): void {
    const added = median(run.times) - median(healthy.times);
    report.push(
      `| ${name} | ${run.times.length} | ${median(run.times)} | ${Math.max(...run.times)} | ${added} | ${run.seen.join(', ')} |`,
    );
  }

  beforeAll(async () => {
    const all = await taps();
    try {
      healthy = await readAll(
        all.map((tap) => tap.url),
        all,
        'healthy',
      );
      record('healthy', healthy);
    } finally {
      await Promise.all(all.map((tap) => tap.close()));
    }
  });

  it('healthy: every request goes to the preferred endpoint', () => {
    expect(healthy.seen[0]).toBeGreaterThan(0);
    expect(healthy.seen.slice(1)).toEqual([0, 0]);
    expect(healthy.endpoints).toMatchObject([{ state: 'closed' }, { state: 'closed' }, { state: 'closed' }]);
  });

  it('refusing connections: the next endpoint answers every read', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const [, b, c] = await taps();
    try {
      const run = await readAll([nowhere, b?.url ?? '', c?.url ?? ''], [b as Tap, c as Tap], 'refused');
      record('refuses connections', { ...run, seen: [0, ...run.seen] });
      expect(run.seen[0]).toBeGreaterThan(0);
      expect(run.seen[1]).toBe(0);
    } finally {
      await Promise.all([b?.close(), c?.close()]);
    }
  });

  for (const [name, fault] of [
    ['answers 500', { kind: 'error' }],
    ['holds its first byte 30 s', { kind: 'hold', ms: 30_000 }],
    ['answers 429 SlowDown, Retry-After: 120', { kind: 'busy', status: 429, retryAfter: '120' }],
  ] as const) {
    it(`${name}: the next endpoint answers every read, and the failing one is left alone meanwhile`, async () => {
      const all = await taps(fault);
      try {
        const run = await readAll(
          all.map((tap) => tap.url),
          all,
          name.replace(/\W+/g, '-'),
        );
        record(name, run);
        const [a = 0, b = 0, c = 0] = run.seen;
        expect(a).toBeGreaterThan(0);
        // Its circuit opened at its first failure: the reads after it went to B at once.
        expect(a).toBeLessThan(objects.size);
        expect(b).toBeGreaterThan(0);
        expect(c).toBe(0);
        // The health answer says so: A's circuit open after its failure, B answering, C never asked.
        expect(run.endpoints).toMatchObject([
          // Left alone 1 to 2 s (jittered) after a failure without a Retry-After: open, or half-open by now.
          { endpoint: all[0]?.url, state: expect.stringMatching(/^(open|half-open)$/), failures: 1 },
          { endpoint: all[1]?.url, state: 'closed', failures: 0 },
          { endpoint: all[2]?.url, state: 'closed', failures: 0 },
        ]);
        // Never waited out: a 429's Retry-After of 120 s, or a held first byte, costs a read at most the timeout.
        expect(Math.max(...run.times)).toBeLessThan(15_000);
      } finally {
        await Promise.all(all.map((tap) => tap.close()));
      }
    });
  }
});
