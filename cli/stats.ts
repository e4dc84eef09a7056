// Entry of `npm run stats` (docs/operating.md): wiring only, the command is run-stats.ts.

import { processContext } from './cli-context.ts';
import { runStats } from './run-stats.ts';

process.exitCode = await runStats(process.argv.slice(2), processContext());
