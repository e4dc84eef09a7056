// Soft purge (docs/purge.md "Soft purge") through the real workers, both tiers, both origin kinds: a soft-purged entry
// is stale at once and revalidated with its validators (RFC 9111 §4.3.1); a 304 renews it without a body, a 200
// replaces it; a sliced object keeps its slices when its version is unchanged; the stale copy is served while the
// revalidation runs only where its own stale-while-revalidate allows (RFC 5861 §3).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture } from './fixture.ts';
import { answerRanged, type RangedObject } from './ranged-object.ts';

const PURGE_TOKEN = 'soft-purge-token';
const MiB = 1024 * 1024;
const SLICED_SIZE = 3 * MiB + 17;
const SETTINGS = {
  PURGE_TOKEN,
  STALE_WHILE_REVALIDATE: '0',
  STALE_IF_ERROR: '0',
  SLICE_SIZE: '1MiB',
  SLICE_THRESHOLD: '2MiB',
};
const FRESH = 'max-age=3600';

/** What the origin received for one object: the conditions it was asked with, and what it answered. */
interface OriginGet {
  headers: Record<string, string>;
  status: number | undefined;
}

/** An origin kind behind the stack: put an object, and read back what the origin received for it. */
interface Mode {
  base: string;
  put(path: string, bytes: Uint8Array, headers: Record<string, string>): Promise<void>;
  gets(path: string): OriginGet[];
  clear(): void;
  close(): Promise<void>;
}

async function s3Mode(): Promise<Mode> {
  const f: Fixture = await startFixture(SETTINGS);
  return {
    base: f.stack.url,
    put: (path, bytes, headers) =>
      f.origin.putObject(path.slice(1), bytes, { 'content-type': 'text/plain', ...headers }),
    gets: (path) =>
      f.tap.requests
        .filter((r) => r.method === 'GET' && r.path.split('?')[0]?.endsWith(path))
        .map((r) => ({ headers: r.headers, status: r.status })),
    clear: () => f.tap.clear(),
    close: () => f.close(),
  };
}

async function httpMode(): Promise<Mode & { origin: AnyOrigin; held: Map<string, Promise<unknown>> }> {
  const origin = await startAnyOrigin();
  const stack: Stack = await startWorkers({
    config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't', ...SETTINGS },
  });
  let version = 0;
  const statuses = new Map<string, (number | undefined)[]>();
  // An answer held until its promise settles (a revalidation in flight while other requests arrive).
  const held = new Map<string, Promise<unknown>>();
  let seen = 0;
  return {
    origin,
    held,
    base: stack.url,
    async put(path, bytes, headers) {
      const object: RangedObject = {
        bytes,
        etag: `"v${++version}"`,
        headers: { 'content-type': 'text/plain', ...headers },
      };
      origin.answer(path, (received) => {
        const answer = answerRanged(object, received);
        const list = statuses.get(path) ?? [];
        list.push(answer.status);
        statuses.set(path, list);
        const after = held.get(path);
        return after === undefined ? answer : { ...answer, after };
      });
    },
    gets: (path) =>
      origin
        .receivedFor(path)
        .map((r, i) => ({ r, status: statuses.get(path)?.[i] }))
        .filter(({ r }) => r.method === 'GET' && origin.received.indexOf(r) >= seen)
        .map(({ r, status }) => ({ headers: r.headers, status })),
    clear: () => {
      seen = origin.received.length;
    },
    async close() {
      await stack.dispose();
      await origin.close();
    },
  };
}

async function softPurge(base: string, targets: string[] | Record<string, unknown>): Promise<void> {
  const named = Array.isArray(targets) ? { urls: targets } : targets;
  const answer = await request(new URL('/__tiercache/purge', base), {
    method: 'POST',
    headers: { authorization: `Bearer ${PURGE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...named, soft: true }),
  });
  expect(answer.status, answer.text).toBe(200);
  expect(JSON.parse(answer.text).purged.soft).toBe(true);
  await settle(50);
}

const get = (base: string, path: string): Promise<Answer> => request(new URL(path, base));
const member = (answer: Answer, tier: 'edge' | 'shield'): string[] =>
  cacheStatus(answer).find((m) => m[0] === `tiercache-${tier}`) ?? [];

/** Reads `path` until the edge answers it from its cache. */
async function warm(mode: Mode, path: string): Promise<void> {
  await get(mode.base, path);
  await settle();
  expect(member(await get(mode.base, path), 'edge')[1], path).toBe('hit');
}

const conditional = (sent: OriginGet): boolean =>
  sent.headers['if-none-match'] !== undefined || sent.headers['if-modified-since'] !== undefined;

for (const kind of ['s3', 'http'] as const) {
  describe(`soft purge (${kind} origin)`, () => {
    let mode: Mode;
    /** http only: answers held until a promise settles (a revalidation in flight while other requests arrive). */
    let held: Map<string, Promise<unknown>> | undefined;
    let n = 0;
    const path = (name: string): string => `/soft-${kind}-${name}-${++n}.txt`;
    beforeAll(async () => {
      if (kind === 's3') mode = await s3Mode();
      else {
        const http = await httpMode();
        mode = http;
        held = http.held;
      }
    });
    afterAll(() => mode?.close());

    it('revalidates at both tiers; a 304 keeps the bytes and renews the entry (a hit after)', async () => {
      const p = path('same');
      await mode.put(p, new TextEncoder().encode('the same bytes'), { 'cache-control': FRESH });
      // Warmed into the edge's memory layer too (worker/memory-hit.ts): it must not answer the soft-purged copy.
      await warm(mode, p);
      await softPurge(mode.base, [p]);
      mode.clear();
      const again = await get(mode.base, p);
      expect(again.text).toBe('the same bytes');
      const sent = mode.gets(p);
      expect(sent).toHaveLength(1);
      expect(sent.every(conditional), JSON.stringify(sent)).toBe(true);
      // The origin answered 304: it sent no body.
      expect(sent[0]?.status).toBe(304);
      expect(member(again, 'shield')).toEqual(expect.arrayContaining(['fwd=stale', 'fwd-status=304']));
      expect(member(again, 'edge')).toEqual(expect.arrayContaining(['fwd=stale', 'fwd-status=304']));
      expect(member(again, 'edge')).not.toContain('detail=stale-while-revalidate');
      await settle();
      mode.clear();
      const after = await get(mode.base, p);
      expect(after.text).toBe('the same bytes');
      expect(member(after, 'edge')[1]).toBe('hit');
      expect(mode.gets(p)).toEqual([]);
    });

    it('replaces a changed object: the revalidation is answered 200 with the new bytes', async () => {
      const p = path('changed');
      await mode.put(p, new TextEncoder().encode('old bytes'), { 'cache-control': FRESH });
      await warm(mode, p);
      await mode.put(p, new TextEncoder().encode('new bytes, longer'), { 'cache-control': FRESH });
      // Still fresh, so still the old bytes: only the purge sends the tiers to the origin.
      expect((await get(mode.base, p)).text).toBe('old bytes');
      await softPurge(mode.base, [p]);
      mode.clear();
      const again = await get(mode.base, p);
      expect(again.status).toBe(200);
      expect(again.text).toBe('new bytes, longer');
      const sent = mode.gets(p);
      expect(sent).toHaveLength(1);
      expect(conditional(sent[0] as OriginGet)).toBe(true);
      // The new bytes, not a 304 (the shield asks for the first slice's span: a 206 of a whole object).
      expect([200, 206]).toContain(sent[0]?.status);
      await settle();
      const after = await get(mode.base, p);
      expect(after.text).toBe('new bytes, longer');
      expect(member(after, 'edge')[1]).toBe('hit');
    });

    it('keeps a sliced object’s slices when its version is unchanged, and drops them when it changed', async () => {
      const p = path('sliced').replace('.txt', '.bin');
      const v1 = patternBytes(n, SLICED_SIZE);
      await mode.put(p, v1, { 'cache-control': FRESH });
      expect(sha256((await get(mode.base, p)).body)).toBe(sha256(v1));
      await settle();
      await softPurge(mode.base, [p]);
      mode.clear();
      const same = await get(mode.base, p);
      expect(sha256(same.body)).toBe(sha256(v1));
      // Only the manifest was revalidated (one conditional request for its first slice, answered 304): no slice again.
      const sent = mode.gets(p);
      expect(sent, JSON.stringify(sent)).toHaveLength(1);
      expect(conditional(sent[0] as OriginGet)).toBe(true);
      expect(sent[0]?.status).toBe(304);
      expect(member(same, 'edge')).toEqual(expect.arrayContaining(['fwd=stale', 'fwd-status=304']));
      await settle();

      const v2 = patternBytes(n + 1000, SLICED_SIZE);
      await mode.put(p, v2, { 'cache-control': FRESH });
      await softPurge(mode.base, [p]);
      mode.clear();
      const changed = await get(mode.base, p);
      expect(changed.status).toBe(200);
      expect(sha256(changed.body)).toBe(sha256(v2));
      // The new version's every slice came from the origin: none of the old version's was served.
      const ranges = mode
        .gets(p)
        .map((r) => r.headers.range)
        .sort();
      expect(ranges).toEqual([
        `bytes=0-${MiB - 1}`,
        `bytes=${MiB}-${2 * MiB - 1}`,
        `bytes=${2 * MiB}-${3 * MiB - 1}`,
        `bytes=${3 * MiB}-${SLICED_SIZE - 1}`,
      ]);
    });

    it('serves the stale copy while revalidating only with the entry’s own stale-while-revalidate', async () => {
      const p = path('swr');
      await mode.put(p, new TextEncoder().encode('swr bytes'), {
        'cache-control': `${FRESH}, stale-while-revalidate=600`,
      });
      await warm(mode, p);
      await softPurge(mode.base, [p]);
      mode.clear();
      const stale = await get(mode.base, p);
      expect(stale.text).toBe('swr bytes');
      expect(member(stale, 'edge')).toContain('detail=stale-while-revalidate');
      await settle(400);
      // Revalidated in the background: one conditional request, answered 304; a hit after.
      const sent = mode.gets(p);
      expect(sent).toHaveLength(1);
      expect(conditional(sent[0] as OriginGet)).toBe(true);
      expect(sent[0]?.status).toBe(304);
      expect(member(await get(mode.base, p), 'edge')[1]).toBe('hit');
    });

    it('soft-purges by prefix, by tag and everything the same way', async () => {
      const dir = `/soft-${kind}-dir-${++n}/`;
      const p = `${dir}a.txt`;
      const tag: Record<string, string> = { [kind === 's3' ? 'x-amz-meta-cache-tag' : 'cache-tag']: 'Soft-Tag' };
      await mode.put(p, new TextEncoder().encode('tagged'), { 'cache-control': FRESH, ...tag });
      await warm(mode, p);
      for (const targets of [{ prefixes: [dir] }, { tags: ['soft-tag'] }, { everything: true }]) {
        await softPurge(mode.base, targets);
        mode.clear();
        const again = await get(mode.base, p);
        expect(again.text).toBe('tagged');
        expect(member(again, 'edge'), JSON.stringify(targets)).toEqual(
          expect.arrayContaining(['fwd=stale', 'fwd-status=304']),
        );
        expect(mode.gets(p).map((sent) => sent.status)).toEqual([304]);
        await settle();
        expect(member(await get(mode.base, p), 'edge')[1]).toBe('hit');
      }
    });

    // The scripted site can hold an answer; S3 cannot (its revalidation is shown above, and in the background).
    if (kind === 'http')
      it('while a revalidation runs, other requests get the stale copy only where stale-while-revalidate allows', async () => {
        const hold = (p: string): (() => void) => {
          let release = (): void => undefined;
          held?.set(
            p,
            new Promise<void>((resolve) => {
              release = resolve;
            }),
          );
          return () => {
            held?.delete(p);
            release();
          };
        };
        const inFlight = async (p: string): Promise<void> => {
          while (mode.gets(p).length === 0) await settle(10);
        };

        // With its own stale-while-revalidate: served stale at once, again while the revalidation is held.
        const swr = path('held-swr');
        await mode.put(swr, new TextEncoder().encode('swr copy'), {
          'cache-control': `${FRESH}, stale-while-revalidate=600`,
        });
        await warm(mode, swr);
        await softPurge(mode.base, [swr]);
        mode.clear();
        const release = hold(swr);
        for (const _ of [1, 2]) {
          const stale = await get(mode.base, swr);
          expect(stale.text).toBe('swr copy');
          expect(member(stale, 'edge')).toContain('detail=stale-while-revalidate');
        }
        await inFlight(swr);
        expect(mode.gets(swr)).toHaveLength(1);
        release();
        await settle(300);
        expect(member(await get(mode.base, swr), 'edge')[1]).toBe('hit');

        // Without: every request waits for the revalidation, and gets what it brings (here a new version).
        const plain = path('held-plain');
        await mode.put(plain, new TextEncoder().encode('old copy'), { 'cache-control': FRESH });
        await warm(mode, plain);
        await mode.put(plain, new TextEncoder().encode('new copy'), { 'cache-control': FRESH });
        await softPurge(mode.base, [plain]);
        mode.clear();
        const releasePlain = hold(plain);
        const waiting = [get(mode.base, plain), get(mode.base, plain)];
        await inFlight(plain);
        releasePlain();
        for (const answer of await Promise.all(waiting)) {
          expect(answer.text).toBe('new copy');
          expect(member(answer, 'edge')).not.toContain('detail=stale-while-revalidate');
        }
        expect(mode.gets(plain).every(conditional)).toBe(true);
      });
  });
}
