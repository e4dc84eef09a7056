// The door a third tier comes in by: in a scratch copy of worker/, shield/ and shared/, a tier named 'middle' added to
// shared/tiers/tiers.ts and its one adapter file (third-tier/map-tier.ts.txt, copied in as shared/tier/map-tier.ts: a
// Map cache and tierHop over the tier behind), nothing else changed. The copy type-checks; and an object is read as
// the edge reads it (openTier, serveObject) through the middle, then the real shield in workerd, then S3, every tier
// saying what it did in Cache-Status, the middle answering a second read from its Map without asking the shield.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Origin, startS3Origin } from '../../../local/origin.ts';
import { type Stack, startWorkers } from '../../../local/workers.ts';
import type { RawConfig } from '../../../shared/config/config.ts';
import { FakeTierCache } from './fakes.ts';
import { TIER_CACHE_CLAUSES, tierCacheViolations } from './tier-cache-contract.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ROOMS = ['worker', 'shield', 'shared', 'tsconfig.json'];
const LIST = 'shared/tiers/tiers.ts';
const ADAPTER = 'shared/tier/map-tier.ts';
/** Between the edge and the shield: TIERS is nearest the client first, and the stats say whose bytes each one's are. */
const MIDDLE = "  { name: 'middle', cacheName: 'tiercache-middle', statusMember: 'tiercache-middle' },";
const HOST = 'third-tier.tiercache.test';
const MiB = 1024 * 1024;

/** The adapter's module in the copy, typed by the repository's types (its 'middle' is the copy's TierName alone). */
interface MapTierModule {
  MapTierCache: new () => import('../../../shared/tier/tier-cache.ts').TierCache & { entries: Map<string, unknown> };
  middleHop: (
    cache: import('../../../shared/tier/tier-cache.ts').TierCache,
    next: import('../../../shared/tier/next-hop.ts').NextHop,
    parts: {
      config: import('../../../shared/config/config.ts').Config;
      clock: import('../../../shared/clock/clock.ts').Clock;
      meter: import('../../../shared/observe/request-meter.ts').RequestMeter;
    },
  ) => import('../../../shared/tier/next-hop.ts').NextHop;
}

let copy = '';
const from = async <T>(path: string): Promise<T> => (await import(join(copy, path))) as T;

/** Every file under `dir` (relative to it). */
function files(dir: string, under = ''): string[] {
  const list = spawnSync('find', [join(dir, under), '-type', 'f'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n');
  return list.filter((line) => line !== '').map((path) => relative(dir, path));
}

beforeAll(() => {
  // Inside the project (.build/ is ignored) so that the test runner transforms the copy's TypeScript.
  mkdirSync(join(ROOT, '.build'), { recursive: true });
  copy = mkdtempSync(join(ROOT, '.build', 'third-tier-door-'));
  for (const room of ROOMS) cpSync(join(ROOT, room), join(copy, room), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const list = join(copy, LIST);
  const text = readFileSync(list, 'utf8');
  const added = text.replace(/(\n {2}\{ name: 'edge'[^\n]*)\n/, `$1\n${MIDDLE}\n`);
  expect(added).not.toBe(text);
  writeFileSync(list, added);
  cpSync(join(ROOT, 'test/shared/tier/third-tier/map-tier.ts.txt'), join(copy, ADAPTER));
});

afterAll(() => {
  if (copy !== '') rmSync(copy, { recursive: true, force: true });
});

describe('a third tier, added by its entry in the list and one adapter file', () => {
  it('changes the list and adds the adapter, nothing else', () => {
    const ours = ROOMS.flatMap((room) => (room.endsWith('.json') ? [room] : files(ROOT, room))).sort();
    const theirs = ROOMS.flatMap((room) => (room.endsWith('.json') ? [room] : files(copy, room))).sort();
    expect(theirs).toEqual([...ours, ADAPTER].sort());
    const changed = ours.filter((path) => !readFileSync(join(ROOT, path)).equals(readFileSync(join(copy, path))));
    expect(changed).toEqual([LIST]);
  });

  it("type-checks both workers and shared/ as they are, the copy's TierName naming 'middle'", async () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(copy, 'tsconfig.json')], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
    const tiers = await from<typeof import('../../../shared/tiers/tiers.ts')>(LIST);
    expect(tiers.TIER_NAMES).toEqual(['edge', 'middle', 'shield', 'r2']);
    expect(tiers.isTierName('middle')).toBe(true);
  });

  it(`keeps every clause of the TierCache contract (${TIER_CACHE_CLAUSES.length}) with its Map cache`, async () => {
    const { MapTierCache } = await from<MapTierModule>(ADAPTER);
    expect(await tierCacheViolations(() => new MapTierCache())).toEqual([]);
  });
});

describe('an object read edge → middle → the real shield → S3', () => {
  let s3: S3Origin;
  let stack: Stack;
  const raw = (url: string): RawConfig => ({
    ORIGIN_KIND: 's3',
    ORIGIN_URL: url,
    S3_BUCKET: 'assets',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    SHIELD_TOKEN: 'third-tier-shield-token',
    SLICE_SIZE: '1MiB',
  });

  beforeAll(async () => {
    s3 = await startS3Origin();
    stack = await startWorkers({ config: raw(s3.url) });
  });
  afterAll(async () => {
    await stack?.dispose();
    await s3?.close();
  });

  /** The copy's edge over the copy's middle (its Map kept across reads) over the shield, counting what reaches it. */
  async function tiers() {
    const { parseConfig } = await from<typeof import('../../../shared/config/config.ts')>('shared/config/config.ts');
    const { PLATFORM_CLOCK } = await from<typeof import('../../../shared/clock/clock.ts')>('shared/clock/clock.ts');
    const { RequestMeter } = await from<typeof import('../../../shared/observe/request-meter.ts')>(
      'shared/observe/request-meter.ts',
    );
    const { requestTarget } = await from<typeof import('../../../shared/request/request-target.ts')>(
      'shared/request/request-target.ts',
    );
    const { NOTHING_APPLIED } = await from<typeof import('../../../shared/rules/rules.ts')>('shared/rules/rules.ts');
    const { openTier } = await from<typeof import('../../../shared/tier/tier.ts')>('shared/tier/tier.ts');
    const { shieldHop } = await from<typeof import('../../../worker/shield-client.ts')>('worker/shield-client.ts');
    const { urlTransport } =
      await from<typeof import('../../../worker/shield-transport.ts')>('worker/shield-transport.ts');
    const { serveObject } = await from<typeof import('../../../worker/serve-object.ts')>('worker/serve-object.ts');
    const { MapTierCache, middleHop } = await from<MapTierModule>(ADAPTER);

    const config = parseConfig(raw(s3.url));
    const transport = urlTransport(new URL(stack.shieldUrl));
    const asked: string[] = [];
    const counting = {
      fetch(path: string, init: RequestInit) {
        asked.push(path);
        return transport.fetch(path, init);
      },
    };
    const shield = shieldHop(counting, config);
    const middleCache = new MapTierCache();
    const held: Promise<unknown>[] = [];
    const meter = () => new RequestMeter(Date.now(), (promise) => void held.push(promise));
    const middle = middleHop(middleCache, shield, { config, clock: PLATFORM_CLOCK, meter: meter() });

    /** A GET as the edge answers it, its cache `edgeCache`; its body read, and what it left running settled. */
    async function edgeGet(name: string, edgeCache: FakeTierCache, headers: Record<string, string> = {}) {
      const url = new URL(`https://${HOST}/${name}`);
      const request = new Request(url, { headers });
      const edge = openTier({
        name: 'edge',
        cache: async () => edgeCache,
        clock: PLATFORM_CLOCK,
        purges: undefined,
        record: async () => undefined,
        meter: meter(),
      });
      const response = await edge.answerObject(
        request,
        { started: Date.now(), now: Date.now(), url },
        {
          config,
          target: requestTarget(url, 's3'),
          key: `https://edge.tiercache.internal${url.pathname}`,
          rules: NOTHING_APPLIED,
          bypassable: false,
          next: middle,
          host: url.hostname,
          client: undefined,
          verdicts: () => ({ watermarks: {} }),
          extra: {},
          get: (read, hops, started) => serveObject(request, read, config, started, hops),
          head: (answer) => answer,
        },
      );
      const bytes = new Uint8Array(await response.arrayBuffer());
      while ((await Promise.allSettled(held.splice(0))).length > 0);
      return { response, bytes, members: members(response.headers.get('cache-status')) };
    }
    return { edgeGet, asked };
  }

  /**
   * Each member of a Cache-Status field, in order: its name, then `hit` or `fwd` when it says either. A sliced answer's
   * member of the next tier says neither while slices asked of it are still coming when the head goes out
   * (shared/tier/hop-report.ts): not known yet.
   */
  function members(field: string | null): string[] {
    return (field ?? '').split(',').map((member) => {
      const [name, ...params] = member.split(';').map((part) => part.trim());
      const said = params.find((param) => param === 'hit' || param.startsWith('fwd='));
      return said === undefined ? `${name}` : `${name} ${said === 'hit' ? 'hit' : 'fwd'}`;
    });
  }

  /** `size` bytes of a pattern of their own. */
  const objectBytes = (size: number): Uint8Array =>
    Uint8Array.from({ length: size }, (_, i) => (i * 7 + (i >> 10)) & 0xff);

  it.each([
    ['a small object', 'small.bin', objectBytes(1000)],
    ['a sliced object of 2.5 slices', 'sliced.bin', objectBytes(2.5 * MiB)],
  ])(
    '%s: exact bytes, every tier in Cache-Status in order, a second read the middle hit',
    async (_what, name, bytes) => {
      await s3.putObject(name, bytes);
      const { edgeGet, asked } = await tiers();

      const first = await edgeGet(name, new FakeTierCache());
      expect(first.response.status).toBe(200);
      expect(Buffer.from(first.bytes).equals(Buffer.from(bytes))).toBe(true);
      expect(first.members).toEqual(['tiercache-shield fwd', 'tiercache-middle fwd', 'tiercache-edge fwd']);
      const shieldAsked = asked.length;
      expect(shieldAsked).toBeGreaterThan(0);

      // Within one slice, on an edge that holds nothing: every answer of the middle heard before the head, a hit.
      const one = await edgeGet(name, new FakeTierCache(), { range: 'bytes=100-199' });
      expect([one.response.status, one.members]).toEqual([
        206,
        ['tiercache-shield fwd', 'tiercache-middle hit', 'tiercache-edge fwd'],
      ]);
      expect(Buffer.from(one.bytes).equals(Buffer.from(bytes.subarray(100, 200)))).toBe(true);

      // Across the first slice's end (when sliced), and the whole again: the middle's answers, none forwarded.
      const start = bytes.length > MiB ? MiB - 10 : 300;
      const ranged = await edgeGet(name, new FakeTierCache(), { range: `bytes=${start}-${start + 20}` });
      expect(ranged.response.status).toBe(206);
      expect(Buffer.from(ranged.bytes).equals(Buffer.from(bytes.subarray(start, start + 21)))).toBe(true);
      const again = await edgeGet(name, new FakeTierCache());
      expect(Buffer.from(again.bytes).equals(Buffer.from(bytes))).toBe(true);
      for (const read of [ranged, again]) {
        expect(read.members).toHaveLength(3);
        expect(read.members[0]).toBe('tiercache-shield fwd');
        expect(read.members[1]).toMatch(/^tiercache-middle( hit)?$/);
        expect(read.members[2]).toBe('tiercache-edge fwd');
      }
      expect(asked.length).toBe(shieldAsked);
    },
  );
});
