// `npm run bench:egress` (`-- --profile sg` for another origin distance): what scripted clients on cold objects cost
// the origin and the shield, per scenario, as both tiers run them behind the shaped origin. Writes egress.{json,md}.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { deterministicBytes } from '../local/assets.ts';
import { startS3Origin } from '../local/origin.ts';
import { startWorkers } from '../local/workers.ts';
import { parseConfig, type RawConfig } from '../shared/config/config.ts';
import { readRange } from './load/range-read.ts';
import { type OriginLedger, startOriginLedger } from './probes/origin-ledger.ts';
import { countOutputLines, type LineCount } from './probes/output-lines.ts';
import { totalCpuSeconds } from './probes/process-cpu.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { untilQuiet } from './probes/quiet.ts';
import { settledTierBytes, tierBytesSince } from './probes/tier-bytes.ts';
import {
  EGRESS_BOUND,
  type EgressRow,
  type EgressRun,
  egressDetail,
  egressTable,
  mb,
  objectSize,
  rowMeets,
} from './report/egress-report.ts';
import { originAnswers } from './report/origin-answers.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { DEFAULT_PROFILE, parseProfile, shaperOptions } from './setup/origin-profiles.ts';
import { startShaper } from './setup/shaper.ts';
import { Stops } from './setup/signals.ts';
import { SCENARIOS, type Scenario } from './workloads/egress-scenarios.ts';

/** Several slices each (8 MiB by default): 24 MiB, three whole slices; 15 MB, a real MP4's size, the last one short. */
const OBJECT_SIZES = [24 * 2 ** 20, 15_000_000] as const;
/** Both tiers flush their counts this often: the stats settle soon after the fills do. */
const STATS_FLUSH_MS = 250;
/** What workerd prints when a body's client has gone (a departed client is counted, not printed). */
const CONNECTION_LOST = /Network connection lost/;

interface ColdObject {
  key: string;
  size: number;
  seed: number;
}

const { values } = parseArgs({ options: { profile: { type: 'string', default: DEFAULT_PROFILE } } });
const profile = parseProfile(values.profile);
const stops = new Stops();
await main();
stops.releaseSignals();

async function main(): Promise<void> {
  const startedAt = new Date();
  try {
    const origin = await startS3Origin();
    stops.push(() => origin.close());
    // Counted twice: at the origin (what it sent) and in front of the shield (what crossed the shaped link).
    const atOrigin = await startOriginLedger(origin.url);
    stops.push(() => atOrigin.close());
    const shaper = await startShaper(shaperOptions(profile, atOrigin.url));
    stops.push(() => shaper.close());
    const atShield = await startOriginLedger(shaper.url);
    stops.push(() => atShield.close());
    const run = randomUUID().slice(0, 8);
    const plan = SCENARIOS.map((scenario, s) => ({
      scenario,
      objects: OBJECT_SIZES.map((size, o) => ({
        key: `egress-bench/${run}/${slug(scenario.name)}-${size}.bin`,
        size,
        seed: 0xe9 + 16 * s + o,
      })),
    }));
    const objects = plan.flatMap((cell) => cell.objects);
    console.log(`uploading ${objects.length} objects (${mb(objects.reduce((sum, o) => sum + o.size, 0))}) …`);
    await Promise.all(
      objects.map((o) =>
        origin.putObject(o.key, deterministicBytes(o.seed, o.size), {
          'content-length': String(o.size),
          'content-type': 'video/mp4',
        }),
      ),
    );
    const statsToken = randomUUID();
    const config: RawConfig = {
      ORIGIN_KIND: 's3',
      ORIGIN_URL: atShield.url,
      S3_BUCKET: origin.bucket,
      S3_ACCESS_KEY_ID: origin.accessKeyId,
      S3_SECRET_ACCESS_KEY: origin.secretAccessKey,
      S3_ADDRESSING: 'path',
      SHIELD_TOKEN: randomUUID(),
      STATS_TOKEN: statsToken,
      STATS_FLUSH_MS: String(STATS_FLUSH_MS),
      // No sampled request lines in the output: errors are still printed.
      LOG_SAMPLE: '0',
    };
    const { sliceSize } = parseConfig(config).slicing;
    const stack = await startWorkers({ config, port: 0 });
    stops.push(() => stack.dispose());
    const lost = countOutputLines(CONNECTION_LOST);
    stops.push(async () => lost.stop());
    const pids = procAvailable() ? processesNamed(process.pid, RUNTIME_NAME) : [];
    const signals = {
      originBytes: () => atOrigin.bodyBytes() + atShield.bodyBytes(),
      originOpen: () => atOrigin.open() + atShield.open(),
      runtimeCpu: () => totalCpuSeconds(pids),
    };
    const measure = {
      base: stack.url,
      statsToken,
      ledgers: { atOrigin, atShield },
      bucket: origin.bucket,
      sliceSize,
      signals,
      lost,
    };
    const rows: EgressRow[] = [];
    for (const { scenario, objects: cold } of plan) {
      for (const object of cold) {
        const row = await scenarioRow(measure, scenario, object);
        rows.push(row);
        console.log(
          `${scenario.name}, ${objectSize(object.size)}: origin sent ${mb(row.origin.sent.sentBytes)}, ${mb(row.origin.sent.repeatedBytes)} twice, edge←shield ${mb(row.edge.bytesFromShield)}${row.exact ? '' : ' WRONG BYTES'}`,
        );
      }
    }
    await report({ benchmark: 'egress', startedAt: startedAt.toISOString(), sliceSize, profile, rows });
    // A wrong byte is a failure of the product; bytes over the target are what the bench is there to show.
    if (!rows.every((row) => row.exact)) process.exitCode = 1;
  } catch (error) {
    console.error(`bench:egress failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    await stops.all();
  }
}

interface Measure {
  base: string;
  statsToken: string;
  ledgers: Record<'atOrigin' | 'atShield', OriginLedger>;
  bucket: string;
  sliceSize: number;
  signals: Parameters<typeof untilQuiet>[0];
  lost: LineCount;
}

/** One scenario on one cold object: its reads, then, once everything settled, what each tier fetched for it. */
async function scenarioRow(measure: Measure, scenario: Scenario, object: ColdObject): Promise<EgressRow> {
  await untilQuiet(measure.signals);
  const before = await settledTierBytes(measure.base, measure.statsToken, 2 * STATS_FLUSH_MS);
  const expected = await collect(deterministicBytes(object.seed, object.size));
  const lostBefore = measure.lost.count();
  const url = `${measure.base}/${object.key}`;
  const reads = [];
  for (const step of scenario.steps(object.size, measure.sliceSize))
    reads.push(...(await Promise.all(step.map((plan) => readRange(url, expected, plan)))));
  const settled = await untilQuiet(measure.signals);
  const after = await settledTierBytes(measure.base, measure.statsToken, 2 * STATS_FLUSH_MS);
  const counted = tierBytesSince(before, after);
  const path = `/${measure.bucket}/${object.key}`;
  const answers = (ledger: OriginLedger) => ledger.responses().filter((r) => r.path === path);
  return {
    scenario: scenario.name,
    key: object.key,
    objectBytes: object.size,
    reads,
    exact: reads.every((read) => read.exact),
    edge: { requests: counted.edge.requests, bytesFromShield: counted.edge.bytesFromNextHop },
    shield: { requests: counted.shield.requests, bytesFromOrigin: counted.shield.bytesFromNextHop },
    origin: originAnswers(answers(measure.ledgers.atOrigin), answers(measure.ledgers.atShield)),
    connectionLostLines: measure.lost.count() - lostBefore,
    unsettled: !settled,
  };
}

async function report(run: EgressRun): Promise<void> {
  const met = run.rows.filter(rowMeets).length;
  const markdown = [
    `# Egress, ${run.startedAt}`,
    '',
    describeMachine(machine()),
    '',
    `Both tiers as \`npm start\` runs them (${run.sliceSize / 2 ** 20} MiB slices), the embedded S3 origin behind the shaper with a counting proxy on either side (profile ${run.profile.name}: ${run.profile.firstByteLatencyMs} ms first byte, ${run.profile.bandwidthBytesPerSec / 1e6} MB/s per connection). Each scenario on cold objects of its own (fresh keys), its clients on the edge one step after another, every byte read checked against the object. Counted once every fill has settled (the origin silent and no answer of it open, the runtime idle):`,
    '',
    "- **origin sent**: body bytes the origin sent for the object, counted answer by answer by a TCP proxy between the shaper and the origin (what it passed on before the answer ended or its connection closed); **sent twice**: bytes of the object within two or more of those answers. Judged on these. Over loopback the socket buffers take megabytes of an answer at once, so an answer the shield cuts counts nearly whole here: as much as an origin's link can have in flight, or more.",
    '- **shield received**: the same answers counted by a second proxy between the shield and the shaper: what crossed the shaped link before the shield had it or cut it.',
    "- **edge←shield (stats)**: the edge's `bytesFromNextHop` in `/__tiercache/stats.json` over the scenario (the shield's answers the edge took, by their declared length: one it cut counts whole); **shield←origin (stats)**: the shield's own count of its origin answers, likewise.",
    '- **"connection lost" lines**: what workerd printed meanwhile about a client gone (`Network connection lost`).',
    '',
    ...SCENARIOS.map((s) => `- ${s.name}: ${s.description}.`),
    '',
    formatTable(egressTable(run.rows)),
    '',
    `${met} of ${run.rows.length} within the target (≤ ${EGRESS_BOUND.toFixed(2)}× at both tiers, 0 bytes sent twice, every byte exact).`,
    '',
    '## Each scenario: its reads, and what the origin sent',
    '',
    ...egressDetail(run.rows),
    '',
  ].join('\n');
  console.log(`\n${markdown}`);
  const paths = await writeResults('egress', new Date(run.startedAt), run, markdown);
  console.log(`results: ${paths.join(', ')}`);
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}
