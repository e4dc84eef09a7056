// `npm run bench` (`-- --quick` for the reduced suite, `-- --profile sg` for another origin
// distance): the whole comparison, end to end. A static origin over deterministic objects,
// behind the WAN shaper; tiercache (workerd via Miniflare) and the installed peers in front of
// it; Workload S, Workload V, the cold large object; then bench/results/<timestamp>/ with the
// report, the raw JSON and SVG charts. Progress goes to stderr.

import { parseArgs } from 'node:util';
import { writeReport } from './bench-report.ts';
import { coldLarge } from './cold-large.ts';
import { DEFAULT_PROFILE, parseProfile, shaperOptions } from './origin-profiles.ts';
import { detectPeers } from './peers/peers.ts';
import { type Context, FULL_PLAN, planObjects, QUICK_PLAN } from './plan.ts';
import { describeError, machine } from './report.ts';
import { startShaper } from './shaper.ts';
import { startSiteOrigin } from './site-origin.ts';
import { cacheNames, startTargets, stopTargets, type Target } from './targets.ts';
import { versions } from './versions.ts';
import { workloadS } from './workload-s.ts';
import { workloadV } from './workload-v.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, profile: { type: 'string', default: DEFAULT_PROFILE } } });
const plan = values.quick ? QUICK_PLAN : FULL_PLAN;
const profile = parseProfile(values.profile);
const startedAt = new Date();
const started = performance.now();
const log = (message: string) => {
  const seconds = Math.floor((performance.now() - started) / 1000);
  process.stderr.write(`[${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}] ${message}\n`);
};
const cleanups: (() => Promise<void>)[] = [];
const cleanUp = async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
};
// Miniflare's own SIGINT/SIGTERM listeners exit on the spot: signals stay ours (as local-stack.ts).
const onSignal = () => void cleanUp().finally(() => process.exit(130));
process.on('newListener', (event, listener) => {
  if ((event === 'SIGINT' || event === 'SIGTERM') && listener !== onSignal) queueMicrotask(() => process.off(event, listener));
});
process.on('SIGINT', onSignal).on('SIGTERM', onSignal);

try {
  const machineBefore = machine();
  const peers = await detectPeers();
  const toolVersions = await versions(peers);
  const names = cacheNames(peers);
  log(`bench (${plan.mode}), origin profile ${profile.name}: ${profile.firstByteLatencyMs} ms first byte, ${profile.bandwidthBytesPerSec / 1e6} MB/s per connection`);
  log(`targets: direct, ${names.join(', ')}${peers.varnish ? '' : ' (Varnish not installed: bash bench/peers/install.sh)'}${peers.nginx?.hasSlice ? '' : ' (nginx with the slice module not installed)'}`);
  const objects = planObjects(plan);
  log(`writing ${objects.length} objects (${(objects.reduce((sum, o) => sum + o.size, 0) / 2 ** 20).toFixed(0)} MiB) for the origin`);
  const origin = await startSiteOrigin(objects);
  cleanups.push(origin.close);
  const shaper = await startShaper(shaperOptions(profile, origin.url));
  cleanups.push(shaper.close);
  const direct: Target = { name: 'direct', url: shaper.url, stop: async () => undefined };
  const context = (targets: Target[]): Context => ({ plan, shaper, targets, log });

  log(`starting ${names.join(', ')} (fresh, empty caches)`);
  const caches = await startTargets(names, shaper.url, peers);
  cleanups.push(() => stopTargets(caches));
  const s = await workloadS(context([direct, ...caches]));
  const v = await workloadV(context(caches));
  // Restarted: the large object is read with every cache empty, as from a fresh deploy.
  log('restarting the caches for the cold large object');
  await stopTargets(caches.splice(0));
  caches.push(...(await startTargets(names, shaper.url, peers)));
  const cold = await coldLarge(context([direct, ...caches]));
  await cleanUp();

  const durationSec = (performance.now() - started) / 1000;
  const run = { startedAt: startedAt.toISOString(), durationSec, mode: plan.mode, reductions: plan.reductions, profile, versions: toolVersions, machine: { before: machineBefore, after: machine() }, peers: names, workloadS: s, workloadV: v, coldLarge: cold };
  const directory = await writeReport(run, startedAt);
  log(`done in ${durationSec.toFixed(0)} s: ${directory}/report.md`);
} catch (error) {
  log(`bench failed: ${describeError(error)}`);
  if (error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
