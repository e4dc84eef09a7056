// The tiers listed once (shared/tiers/tiers.ts): what each entry must be, and that a made-up fourth tier
// added to the list alone type-checks and shows in stats.json and on the stats page, no other file changed.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOptional, isTierName, perTier, TIER_NAMES, TIERS, tier } from '../../../shared/tiers/tiers.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** RFC 8941 §3.3.4 sf-token: what a Cache-Status member's name must be (RFC 9211 §2). */
const SF_TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~:/0-9A-Za-z]*$/;
const ANOTHER = "{ name: 'disk', cacheName: 'tiercache-disk', statusMember: 'tiercache-disk' }";

describe('TIERS', () => {
  it('lists the edge, the shield, then the R2 tier, with where each keeps its entries and its Cache-Status member', () => {
    expect(TIERS).toEqual([
      { name: 'edge', cacheName: 'tiercache-edge', statusMember: 'tiercache-edge' },
      { name: 'shield', cacheName: 'tiercache-shield', statusMember: 'tiercache-shield' },
      { name: 'r2', cacheName: 'tiercache-r2', statusMember: 'tiercache-r2', optional: true },
    ]);
    expect(TIER_NAMES).toEqual(TIERS.map((entry) => entry.name));
  });

  it('says the R2 tier alone is one a deployment may run without', () => {
    expect(TIER_NAMES.filter(isOptional)).toEqual(['r2']);
  });

  it('names each tier once, in lower case (a JSON key, a CSS class, a Server-Timing metric), its member an sf-token', () => {
    for (const field of ['name', 'cacheName', 'statusMember'] as const)
      expect(new Set(TIERS.map((entry) => entry[field])).size).toBe(TIERS.length);
    for (const entry of TIERS) {
      expect(entry.name).toMatch(/^[a-z][a-z0-9]*$/);
      expect(entry.statusMember).toMatch(SF_TOKEN);
    }
  });

  it('finds an entry by name, tells a name off the wire, and makes a value per tier in order', () => {
    expect(tier('shield').statusMember).toBe('tiercache-shield');
    expect(TIER_NAMES.every(isTierName)).toBe(true);
    for (const other of ['origin', 'Edge', '', '__proto__', 1, null, undefined]) expect(isTierName(other)).toBe(false);
    expect(Object.keys(perTier((name) => name.length))).toEqual(TIER_NAMES);
  });
});

describe('a made-up fourth tier, added to the list and nowhere else', () => {
  let copy = '';

  beforeAll(() => {
    // Inside the project (.build/ is ignored) so that the test runner transforms the copy's TypeScript.
    mkdirSync(join(ROOT, '.build'), { recursive: true });
    copy = mkdtempSync(join(ROOT, '.build', 'third-tier-'));
    for (const room of ['worker', 'shield', 'shared', 'tsconfig.json'])
      cpSync(join(ROOT, room), join(copy, room), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const list = join(copy, 'shared/tiers/tiers.ts');
    const text = readFileSync(list, 'utf8');
    const added = text.replace(/\n\] as const;/, `\n  ${ANOTHER},\n] as const;`);
    expect(added).not.toBe(text);
    writeFileSync(list, added);
  });

  afterAll(() => {
    if (copy !== '') rmSync(copy, { recursive: true, force: true });
  });

  it('type-checks both workers and shared/ as they are', () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(copy, 'tsconfig.json')], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  });

  it('counts its records through a batch, the store and the view, and draws it on the page', async () => {
    const from = async <T>(path: string): Promise<T> => (await import(join(copy, path))) as T;
    const { tierRecord } = await from<typeof import('../../../shared/stats/record.ts')>('shared/stats/record.ts');
    const { StatsBatch } =
      await from<typeof import('../../../shared/stats/stats-batch.ts')>('shared/stats/stats-batch.ts');
    const protocol = await from<typeof import('../../../shared/stats/store-protocol.ts')>(
      'shared/stats/store-protocol.ts',
    );
    const buckets = await from<typeof import('../../../shared/stats/minute-bucket.ts')>(
      'shared/stats/minute-bucket.ts',
    );
    const operations = await from<typeof import('../../../shared/stats/store-operations.ts')>(
      'shared/stats/store-operations.ts',
    );
    const { statsView } =
      await from<typeof import('../../../shared/stats/stats-view.ts')>('shared/stats/stats-view.ts');
    const { statsPage } =
      await from<typeof import('../../../shared/stats/stats-page.ts')>('shared/stats/stats-page.ts');

    const now = Date.parse('2026-02-03T14:00:30Z');
    const batch = new StatsBatch();
    for (const [name, member] of [
      ['edge', 'tiercache-edge; fwd=uri-miss'],
      ['disk', 'tiercache-disk; hit'],
    ] as const) {
      batch.add(
        tierRecord({
          // The copy's TierName has 'disk'; this file's does not.
          tier: name as 'edge',
          method: 'GET',
          host: 'cdn.example',
          path: '/a.bin',
          status: 200,
          headers: new Headers({ 'cache-status': member, 'content-length': '1000' }),
          bytesFromNextHop: 0,
          bytesFromOrigin: 0,
          at: now,
          ttfbMs: 2,
          durationMs: 3,
        }),
      );
    }
    // Across the wire to the store and back, as the Durable Object would take it.
    const parsed = protocol.parseStatsBatch(
      JSON.parse(
        JSON.stringify({ ...batch.take(), operations: { tier: 'disk', kvLists: 1, kvWrites: 0, kvReads: 0 } }),
      ),
    );
    if (!parsed.ok) throw new Error(parsed.reason);
    const merged = buckets.mergeBatch(new Map(), parsed.batch);
    const stored = [...merged.values()].map((bucket) =>
      buckets.withOperations(
        bucket,
        operations.mergeOperations('disk' as 'edge', { kvLists: 1, kvWrites: 0, kvReads: 0 }, { read: 1, written: 1 }),
      ),
    );
    const view = statsView(stored, [], now, 7);
    const tiers = view.tiers as Record<string, (typeof view.tiers)['edge']>;
    expect(Object.keys(view.tiers)).toEqual([...TIER_NAMES, 'disk']);
    expect(tiers.disk?.totals.requests).toBe(1);
    expect(tiers.disk?.hitRatio).toBe(1);
    expect(Object.keys(view.minutes.at(-1)?.tiers ?? {})).toEqual([...TIER_NAMES, 'disk']);
    expect(view.cost.windowOperations).toMatchObject({ durableObjectRequests: 1, kvListRequests: 1 });

    const page = statsPage(view);
    expect(page).toContain('<article class="card disk"><h3>Disk</h3>');
    // The R2 tier made no record here, so it is not shown: the shield's bytes now come from the new tier behind it, the
    // new one's from the origin.
    expect(page).not.toContain('<article class="card r2">');
    expect(page).toContain('<dt>bytes from the disk</dt>');
    expect(page.match(/<dt>bytes from the origin<\/dt>/g)).toHaveLength(1);
    expect(page).toContain('<th scope="col" class="number">disk</th>');
    expect(page).toContain('<span class="swatch tone-disk" aria-hidden="true"></span>disk</li>');
    expect(page).toMatch(/<path class="line tone-disk" d="[^"]+"><title>disk<\/title><\/path>/);
    expect(page).toContain('--disk: #0f766e;');
    expect(page).toContain('.tone-disk.line { stroke: var(--disk); }');
  });
});
