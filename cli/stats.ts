// Entry of `npm run stats` (README "Operating tiercache"): wiring only, the command is run-stats.ts.

import { processContext } from './cli-context.ts';
import { runStats } from './run-stats.ts';

process.exitCode = await runStats(process.argv.slice(2), processContext());
