// `npm run bench` (`-- --quick` for the reduced suite, `-- --profile sg` for another origin distance): the whole
// comparison, end to end (bench/README.md says what it runs). Progress goes to stderr, the targets table to stdout.

import { spawn } from 'node:child_process';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describePageCost, pageCost } from './probes/page-cost.ts';
import { type EgressEvidence, egressEvidence, egressTarget } from './report/egress-report.ts';
import { memoryEvidence } from './report/memory-report.ts';
import { evaluateTargets, type MemoryEvidence, targetsTable } from './report/requirements.ts';
import { describeError, formatTable, latestResult, machine } from './report/results.ts';
import { writeReport } from './report/suite-report.ts';
import { versions } from './report/versions.ts';
import { stopChildren } from './setup/layers/launchers.ts';
import { DEFAULT_PROFILE, parseProfile, shaperOptions } from './setup/origin-profiles.ts';
import { startOriginThread } from './setup/origin-thread.ts';
import { detectPeers } from './setup/peers/peers.ts';
import type { Shaper } from './setup/shaper.ts';
import { keepSignals } from './setup/signals.ts';
import {
  cacheNames,
  FRONT_NAME,
  JUDGED_CELLS_ONLY,
  NAIVE_NAMES,
  SLICE_SIZE,
  startTargets,
  stopTargets,
  type Target,
  type TargetName,
} from './setup/targets.ts';
import { coldConcurrent } from './workloads/cold-concurrent.ts';
import { coldLarge } from './workloads/cold-large-object.ts';
import { workloadV } from './workloads/concurrency-sweep.ts';
import { measureLayers } from './workloads/layer-costs.ts';
import { type Context, FULL_PLAN, planObjects, QUICK_PLAN } from './workloads/plan.ts';
import { workloadS } from './workloads/size-sweep.ts';

const MEMORY_SCRIPT = fileURLToPath(new URL('./memory.ts', import.meta.url));
const EGRESS_SCRIPT = fileURLToPath(new URL('./egress.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
const MEMORY_LIMIT_MS = 5 * 60_000;
const EGRESS_LIMIT_MS = 10 * 60_000;

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, profile: { type: 'string', default: DEFAULT_PROFILE } },
});
const plan = values.quick ? QUICK_PLAN : FULL_PLAN;
const profile = parseProfile(values.profile);
const startedAt = new Date();
const started = performance.now();
const log = (message: string) => {
  const seconds = Math.floor((performance.now() - started) / 1000);
  process.stderr.write(
    `[${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}] ${message}\n`,
  );
};
const cleanups: (() => Promise<void>)[] = [stopChildren];
const cleanUp = async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
};
keepSignals(() => void cleanUp().finally(() => process.exit(130)));

try {
  const machineBefore = machine();
  // What storing costs this machine's kernel, before anything runs (every cold byte a cache stores lands on new pages).
  const pages = pageCost();
  const peers = await detectPeers();
  const toolVersions = await versions(peers);
  const names = cacheNames(peers);
  log(
    `bench (${plan.mode}), origin profile ${profile.name}: ${profile.firstByteLatencyMs} ms first byte, ${profile.bandwidthBytesPerSec / 1e6} MB/s per connection`,
  );
  log(`machine: ${describePageCost(pages)}`);
  log(
    `targets: direct, ${[...names, ...NAIVE_NAMES].join(', ')}${peers.varnish ? '' : ' (Varnish not installed: bash bench/setup/peers/install.sh)'}${peers.nginx?.hasSlice ? '' : ' (nginx with the slice module not installed)'}`,
  );
  const objects = planObjects(plan);
  log(
    `writing ${objects.length} objects (${(objects.reduce((sum, o) => sum + o.size, 0) / 2 ** 20).toFixed(0)} MiB) for the origin`,
  );
  const { origin, startShaper } = await startOriginThread(objects);
  cleanups.push(origin.close);
  const shaper = await startShaper(shaperOptions(profile, origin.url));
  cleanups.push(shaper.close);
  const direct: Target = { name: 'direct', url: shaper.url, stop: async () => undefined };
  const context = (targets: Target[]): Context => ({ plan, shaper, targets, log });

  // tiercache's edge also through the local front, right after it: the front measured as a layer of its own.
  const suite = names.flatMap((name): TargetName[] => (name === 'tiercache' ? [name, FRONT_NAME] : [name]));
  log(`starting ${[...suite, ...NAIVE_NAMES].join(', ')} (fresh, empty caches, all at once)`);
  const running = await startTargets([...suite, ...NAIVE_NAMES], shaper.url, peers);
  cleanups.push(() => stopTargets(running));
  const s = await workloadS(context([direct, ...running.filter((target) => target.name !== FRONT_NAME)]));
  const vTargets = running.filter(
    (target) => plan.workloadV.targets.includes(target.name) || JUDGED_CELLS_ONLY.includes(target.name),
  );
  const v = await workloadV(context(vTargets));
  await stopTargets(running.splice(0));

  // With nothing else running: each layer is measured alone.
  const layers = plan.layers && { plan: plan.layers, measurements: await measureLayers(plan.layers, log) };

  // Restarted: the large object is read with every cache empty, as from a fresh deploy; each
  // behind a shaper of its own, since the single streams are read at once (cold-large-object.ts).
  log('restarting the caches for the cold large object, each behind a shaper of its own');
  const coldShapers = new Map<TargetName, Shaper>();
  for (const name of names) {
    const own = await startShaper(shaperOptions(profile, origin.url));
    cleanups.push(own.close);
    coldShapers.set(name, own);
  }
  const restarted = await Promise.allSettled(
    names.map((name) => startTargets([name], coldShapers.get(name)?.url ?? shaper.url, peers)),
  );
  running.push(...restarted.flatMap((result) => (result.status === 'fulfilled' ? result.value : [])));
  const failed = restarted.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const cold = await coldLarge(context([direct, ...running]), (name) => coldShapers.get(name) ?? shaper);
  // tiercache alone now (its runtime's memory is what is sampled), behind its own shaper.
  const [ours, ...others] = [
    ...running.filter((target) => target.name === 'tiercache'),
    ...running.filter((target) => target.name !== 'tiercache'),
  ];
  await stopTargets(ours === undefined ? running : others);
  const together = ours && (await coldConcurrent(context([ours]), ours));
  await stopTargets(ours === undefined ? [] : [ours]);
  running.splice(0);
  const memory = plan.memory === 'run' ? await runMemory() : await latestMemory();
  const egress = plan.egress === 'run' ? await runEgress() : await latestEgress();
  await cleanUp();

  const judged = evaluateTargets({
    caches: names,
    vSizes: plan.workloadV.sizes,
    workloadS: s.runs,
    workloadV: v,
    coldLarge: cold,
    coldLabel: plan.coldLarge.label,
    profile,
    sliceSize: SLICE_SIZE,
    ...(memory && { memory }),
    ...(together && { together }),
  });
  const targets = [...judged, egressTarget(egress)];
  const durationSec = (performance.now() - started) / 1000;
  const run = {
    startedAt: startedAt.toISOString(),
    durationSec,
    mode: plan.mode,
    reductions: plan.reductions,
    profile,
    sliceSize: SLICE_SIZE,
    versions: toolVersions,
    machine: { before: machineBefore, after: machine() },
    pageCost: pages,
    peers: names,
    workloadS: s,
    workloadV: v,
    coldLarge: cold,
    ...(together && { coldConcurrent: together }),
    ...(layers && { layers }),
    ...(memory && { memory }),
    ...(egress && { egress }),
    targets,
  };
  const directory = await writeReport(run, startedAt);
  process.stdout.write(
    `\nTargets (${plan.mode} run, ${durationSec.toFixed(0)} s):\n\n${formatTable(targetsTable(targets))}\n`,
  );
  log(`done in ${durationSec.toFixed(0)} s: ${directory}/report.md`);
} catch (error) {
  log(`bench failed: ${describeError(error)}`);
  if (error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}

/** bench:memory in a process of its own (its own stack and origin), then its results file. */
async function runMemory(): Promise<MemoryEvidence | undefined> {
  log('memory-growth: bench:memory (1 GiB through both tiers, workerd RSS sampled)');
  const fresh = await runOwnProcess('memory', [MEMORY_SCRIPT], MEMORY_LIMIT_MS);
  return fresh && memoryEvidence(fresh.json, `this run, ${relative(PROJECT_ROOT, fresh.path)}`);
}

/** bench:egress in a process of its own (its own stack, origin and shaper), then its results file. */
async function runEgress(): Promise<EgressEvidence | undefined> {
  log('egress: bench:egress (scripted clients on cold objects, origin bytes counted per answer)');
  // Behind the same origin distance as the rest of the run.
  const fresh = await runOwnProcess('egress', [EGRESS_SCRIPT, '--profile', values.profile], EGRESS_LIMIT_MS);
  return fresh && egressEvidence(fresh.json, `this run, ${relative(PROJECT_ROOT, fresh.path)}`);
}

/** A script (`args`: it and its arguments) to its end, at most `limitMs`, its output logged; its `<name>.json` if it wrote one. */
async function runOwnProcess(
  name: string,
  args: string[],
  limitMs: number,
): Promise<{ path: string; json: unknown } | undefined> {
  const spawned = Date.now();
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(async () => void child.kill('SIGTERM'));
  const prefix = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter((line) => line.trim())
      .forEach((line) => {
        log(`  ${name}: ${line}`);
      });
  child.stdout.on('data', prefix);
  child.stderr.on('data', prefix);
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  if (code !== 0) log(`  bench:${name} exited with ${code}`);
  const latest = await latestResult(name);
  const fresh =
    latest &&
    typeof latest.json === 'object' &&
    latest.json !== null &&
    Date.parse(String((latest.json as { startedAt?: unknown }).startedAt)) >= spawned - 1000;
  return fresh ? latest : undefined;
}

async function latestEgress(): Promise<EgressEvidence | undefined> {
  const latest = await latestResult('egress');
  return latest && egressEvidence(latest.json, `not this run: ${relative(PROJECT_ROOT, latest.path)}`);
}

async function latestMemory(): Promise<MemoryEvidence | undefined> {
  const latest = await latestResult('memory');
  return latest && memoryEvidence(latest.json, `not this run: ${relative(PROJECT_ROOT, latest.path)}`);
}
