// `npm run bench:purge-volume`: what purging at volume costs in KV on the local stack (docs/purge.md "Volume"). One
// purge of 1,000 URLs; then 100 purge requests in one minute while clients read through the edge; then a second edge
// isolate, untouched until then, reading the list from scratch. The KV requests are the isolates' own counts
// (shared/purge/purge-store.ts takeKvOperations), as the stats store sums them; the keys are what the namespace holds.
// Writes bench/results/<ts>/purge-volume.*.

import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { type Stack, startWorkers } from '../local/workers.ts';
import { MAX_PURGE_VALUES } from '../shared/purge/purge-rules.ts';
import { SNAPSHOT_AFTER } from '../shared/purge/purge-snapshot.ts';
import { REFRESH_MS } from '../shared/purge/purge-store.ts';
import type { StatsJson } from '../shared/stats/stats-json.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { median } from './report/statistics.ts';
import { type BenchObject, startSiteOrigin } from './setup/site-origin.ts';

/**
 * Purge requests a minute, each naming URLS_EACH URLs (one of them a warm object) and a tag, for MINUTES minutes: past
 * the first, the snapshots engage (a batch is covered once KV's 60 s propagation has passed).
 */
const REQUESTS = 100;
const MINUTES = 2;
const MINUTE_MS = 60_000;
const URLS_EACH = 10;
/** Warm objects the readers ask for; the purges name them in turn. */
const WARM = 20;
/** How often the reader asks the edge during the minute. */
const READ_EVERY_MS = 200;

interface KvCounts {
  lists: number;
  writes: number;
  reads: number;
}

interface Phase {
  name: string;
  purges: number;
  targets: number;
  kv: KvCounts;
  answeredMedianMs?: number;
  answeredMaxMs?: number;
  durationMs: number;
}

await main();

async function main(): Promise<void> {
  const startedAt = new Date();
  const stops: (() => Promise<void>)[] = [];
  try {
    const objects: BenchObject[] = Array.from({ length: WARM }, (_, i) => ({
      path: `/warm-${i}.bin`,
      size: 4_000,
      seed: 0x70 + i,
    }));
    const origin = await startSiteOrigin(objects);
    stops.push(() => origin.close());
    const tokens = { purge: randomUUID(), stats: randomUUID() };
    const config = {
      ORIGIN_KIND: 'http',
      ORIGIN_URL: origin.url,
      SHIELD_TOKEN: randomUUID(),
      PURGE_TOKEN: tokens.purge,
      STATS_TOKEN: tokens.stats,
      STATS_FLUSH_MS: '0',
      LOG_SAMPLE: '0',
    };
    const stack = await startWorkers({ config, secondEdge: true });
    stops.push(() => stack.dispose());
    const second = stack.secondEdgeUrl;
    if (second === undefined) throw new Error('the stack started no second edge');
    for (const object of objects) await get(stack.url, object.path);

    const phases: Phase[] = [];
    phases.push(
      await measured(stack, tokens.stats, 'one purge of 1,000 URLs', () => oneLargePurge(stack, tokens.purge)),
    );
    phases.push(
      await measured(
        stack,
        tokens.stats,
        `${REQUESTS} purge requests a minute for ${MINUTES} min, clients reading`,
        () => aMinuteOfPurges(stack, tokens.purge, objects),
      ),
    );
    phases.push(
      await measured(stack, tokens.stats, 'a second edge isolate reads the list from scratch', async () => {
        await get(second, objects[0]?.path ?? '/');
        return { purges: 0, targets: 0, answered: [] };
      }),
    );
    const keys = await purgeKeys(stack);
    await report(startedAt, phases, keys);
  } catch (error) {
    console.error(`bench:purge-volume failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

type Work = () => Promise<{ purges: number; targets: number; answered: number[] }>;

/** `work`, with the KV requests every isolate made during it (the stats' window sums, before and after). */
async function measured(stack: Stack, statsToken: string, name: string, work: Work): Promise<Phase> {
  await throughBoth(stack.url);
  await delay(500);
  const before = await kvCounts(stack, statsToken);
  const started = performance.now();
  const done = await work();
  const durationMs = performance.now() - started;
  // An isolate sends its counts with the records of the requests it serves (a purge is not one): a request that
  // reaches both tiers makes both send theirs, then they land.
  await throughBoth(stack.url);
  await delay(500);
  const after = await kvCounts(stack, statsToken);
  return {
    name,
    purges: done.purges,
    targets: done.targets,
    kv: { lists: after.lists - before.lists, writes: after.writes - before.writes, reads: after.reads - before.reads },
    ...(done.answered.length > 0
      ? { answeredMedianMs: median(done.answered), answeredMaxMs: Math.max(...done.answered) }
      : {}),
    durationMs,
  };
}

async function oneLargePurge(
  stack: Stack,
  token: string,
): Promise<{ purges: number; targets: number; answered: number[] }> {
  const urls = Array.from({ length: MAX_PURGE_VALUES }, (_, i) => `/large/${i}.html`);
  return { purges: 1, targets: urls.length, answered: [await purge(stack, token, { urls })] };
}

/** REQUESTS purges paced over a minute, each of URLS_EACH URLs and a tag, while a reader asks the edge throughout. */
async function aMinuteOfPurges(
  stack: Stack,
  token: string,
  objects: readonly BenchObject[],
): Promise<{ purges: number; targets: number; answered: number[] }> {
  let reading = true;
  const reader = (async () => {
    for (let i = 0; reading; i++) {
      await get(stack.url, objects[i % objects.length]?.path ?? '/');
      await delay(READ_EVERY_MS);
    }
  })();
  const answered: number[] = [];
  const started = performance.now();
  for (let i = 0; i < REQUESTS * MINUTES; i++) {
    const warm = objects[i % objects.length]?.path ?? '/';
    const urls = [warm, ...Array.from({ length: URLS_EACH - 1 }, (_, j) => `/minute/${i}/${j}.html`)];
    answered.push(await purge(stack, token, { urls, tags: [`release-${i}`] }));
    const next = ((i + 1) * MINUTE_MS) / REQUESTS - (performance.now() - started);
    if (next > 0) await delay(next);
  }
  reading = false;
  await reader;
  return { purges: REQUESTS * MINUTES, targets: REQUESTS * MINUTES * (URLS_EACH + 1), answered };
}

async function purge(stack: Stack, token: string, body: unknown): Promise<number> {
  const started = performance.now();
  const answer = await fetch(`${stack.url}/__tiercache/purge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`a purge answered ${answer.status}: ${text.slice(0, 200)}`);
  return performance.now() - started;
}

/** A request the edge and the shield both serve (a path the origin does not have: a 404 each). */
async function throughBoth(base: string): Promise<void> {
  const answer = await fetch(`${base}/not-there-${randomUUID()}.bin`);
  await answer.arrayBuffer();
}

async function get(base: string, path: string): Promise<void> {
  const answer = await fetch(`${base}${path}`);
  await answer.arrayBuffer();
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
}

/** The window's KV requests, every isolate's, as the stats store counted them. */
async function kvCounts(stack: Stack, statsToken: string): Promise<KvCounts> {
  const answer = await fetch(`${stack.url}/__tiercache/stats.json`, {
    headers: { authorization: `Bearer ${statsToken}` },
  });
  if (answer.status !== 200) throw new Error(`stats.json answered ${answer.status}`);
  const { windowOperations } = ((await answer.json()) as StatsJson).cost;
  return {
    lists: windowOperations.kvListRequests,
    writes: windowOperations.kvWriteRequests,
    reads: windowOperations.kvReadRequests,
  };
}

/** The purge list's keys in KV at the end: batches and snapshots. */
async function purgeKeys(stack: Stack): Promise<{ batches: number; snapshots: number }> {
  const kv = await stack.mf.getKVNamespace('PURGES', 'edge');
  const names: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await kv.list({ prefix: 'purge:', cursor });
    names.push(...page.keys.map((key) => key.name));
    if (page.list_complete) break;
    cursor = page.cursor;
  }
  const kind = (name: string): string | undefined => name.split(':')[2];
  return {
    batches: names.filter((name) => kind(name) === 'b').length,
    snapshots: names.filter((name) => kind(name) === 's').length,
  };
}

async function report(startedAt: Date, phases: Phase[], keys: { batches: number; snapshots: number }): Promise<void> {
  const [large, minute, fresh] = phases;
  const rows = phases.map((phase) => [
    phase.name,
    String(phase.purges),
    String(phase.targets),
    String(phase.kv.writes),
    String(phase.kv.lists),
    String(phase.kv.reads),
    phase.answeredMedianMs === undefined
      ? '–'
      : `${phase.answeredMedianMs.toFixed(0)} / ${phase.answeredMaxMs?.toFixed(0)}`,
    (phase.durationMs / 1000).toFixed(1),
  ]);
  // Edge and shield each re-read at most every REFRESH_MS while asked.
  const reReads = minute === undefined ? 0 : 2 * Math.ceil(minute.durationMs / REFRESH_MS);
  const perRequest = minute === undefined ? Number.NaN : minute.kv.writes / minute.purges;
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'SHORT');
  const markdown = [
    `# Purge at volume, ${startedAt.toISOString()}`,
    '',
    describeMachine(machine()),
    '',
    "Both tiers on the local stack (ORIGIN_KIND=http) with a second edge isolate sharing the purge list (KV) and the shield. KV requests are the isolates' own counts, summed by the stats store; a delete counts as a write.",
    '',
    formatTable({
      columns: [
        'phase',
        'purge requests',
        'targets',
        'KV writes',
        'KV lists',
        'KV reads',
        'answered, median / max ms',
        'took, s',
      ],
      rows,
    }),
    '',
    `- **Writes per purge request:** ${large?.kv.writes ?? '?'} for 1,000 targets; ${perRequest.toFixed(2)} a request over the ${MINUTES} minutes (one batch each, the head at most once a second per isolate, a snapshot every ${SNAPSHOT_AFTER} batches once covered, and the deletion of a superseded one): **${verdict((large?.kv.writes ?? 99) <= 3 && perRequest <= 2.1)}** (target: no write per record).`,
    `- **Lists over the ${MINUTES} minutes:** ${minute?.kv.lists ?? '?'}, against ${reReads} re-reads at most (edge and shield, one each per ${REFRESH_MS / 1000} s while asked): **${verdict((minute?.kv.lists ?? 999) <= reReads)}** (at most one list request a re-read, however many purges were made; the head changes at every purge here, so each re-read lists).`,
    `- **Head reads over the ${MINUTES} minutes:** ${minute?.kv.reads ?? '?'} KV reads, against ${reReads} re-reads at most: **${verdict((minute?.kv.reads ?? 999) <= reReads + 2)}** (one head get a re-read at most, fewer where the tiers of one location share it through the Cache API, with a large batch's value or a snapshot now and then).`,
    `- **A new isolate:** ${fresh?.kv.lists ?? '?'} list and ${fresh?.kv.reads ?? '?'} read requests to know ${REQUESTS * MINUTES + 1} purge requests' records (its first request also reached the shield, which re-read if due): **${verdict((fresh?.kv.lists ?? 99) <= 2 && (fresh?.kv.reads ?? 99) <= 4)}** (bounded: the head, the newest snapshot and the batches since, a large batch's value among them).`,
    `- **Keys in KV at the end:** ${keys.batches} batches and ${keys.snapshots} snapshots.`,
  ].join('\n');
  process.stdout.write(`${markdown}\n`);
  const paths = await writeResults(
    'purge-volume',
    startedAt,
    { startedAt: startedAt.toISOString(), phases, keys, machine: machine() },
    markdown,
  );
  process.stderr.write(`wrote ${paths.join(', ')}\n`);
}
