// Entry of `npm run cost` (docs/costs.md): wiring only, the command is run-cost.ts.

import { processContext } from './command.ts';
import { runCost } from './run-cost.ts';

process.exitCode = runCost(process.argv.slice(2), processContext());
