// `npm run bench:layers`: what each local layer costs (workloads/layer-costs.ts), on its own and at full length.

import { layerCosts, layersTable } from './report/layers-table.ts';
import { describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { stopChildren } from './setup/layers/launchers.ts';
import { keepSignals } from './setup/signals.ts';
import { BODY_KIB, type LayerPlan, measureLayers } from './workloads/layer-costs.ts';

/** 1 s warm-up then 3 s measured per layer × route; `npm run bench` runs a shorter plan inside its report. */
const PLAN: LayerPlan = { connections: 100, warmUpSec: 1, measureSec: 3 };

const startedAt = new Date();
const log = (message: string) => process.stderr.write(`[layers] ${message}\n`);
keepSignals(() => void stopChildren().finally(() => process.exit(130)));

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
  const paths = await writeResults(
    'layers',
    startedAt,
    { startedAt: startedAt.toISOString(), machine: machineBefore, plan: PLAN, measurements },
    markdown,
  );
  log(`wrote ${paths.join(', ')}`);
} finally {
  await stopChildren();
}
process.exit(0);
