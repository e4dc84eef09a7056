// `npm run bench:layers`: what each local layer costs (layer-costs.ts), on its own and at full
// length: 100 connections, 1 s warm-up then 3 s measured per layer × route. `npm run bench`
// runs a shorter version of the same inside its report.

import { describeMachine, formatTable, machine, writeResults } from '../report.ts';
import { BODY_KIB, type LayerPlan, layerCosts, layersTable, measureLayers } from './layer-costs.ts';
import { stopChildren } from './layers.ts';

const PLAN: LayerPlan = { connections: 100, warmUpSec: 1, measureSec: 3 };

const startedAt = new Date();
const log = (message: string) => process.stderr.write(`[layers] ${message}\n`);
// Miniflare's own SIGINT/SIGTERM listeners exit on the spot: signals stay ours (as bench/run.ts).
const onSignal = () => void stopChildren().finally(() => process.exit(130));
process.on('newListener', (event, listener) => {
  if ((event === 'SIGINT' || event === 'SIGTERM') && listener !== onSignal) queueMicrotask(() => process.off(event, listener));
});
process.on('SIGINT', onSignal).on('SIGTERM', onSignal);

try {
  const machineBefore = machine();
  const measurements = await measureLayers(PLAN, log);
  const printed = formatTable(layersTable(measurements));
  process.stdout.write(`${printed}\n`);
  const notes = [
    `${PLAN.connections} connections, wrk, ${PLAN.warmUpSec} s warm-up then ${PLAN.measureSec} s measured, per layer × route; ${BODY_KIB} KiB bodies.`,
    'Bare workerd has no Cache API without a cache service in its config ("No Cache was configured"): /cache is measured on Miniflare and wrangler dev only.',
    ...layerCosts(measurements),
    `Machine: ${describeMachine(machineBefore)} (before); load average after ${machine().loadAverage.join(' ')}.`,
  ];
  const markdown = `# Local layers: the naive worker\n\n${printed}\n\n${notes.map((note) => `- ${note}`).join('\n')}\n`;
  const paths = await writeResults('layers', startedAt, { startedAt: startedAt.toISOString(), machine: machineBefore, plan: PLAN, measurements }, markdown);
  log(`wrote ${paths.join(', ')}`);
} finally {
  await stopChildren();
}
process.exit(0);
