// Entry of `npm run purge` (docs/purge.md): wiring only, the command is run-purge.ts.

import { processContext } from './cli-context.ts';
import { runPurge } from './run-purge.ts';

process.exitCode = await runPurge(process.argv.slice(2), processContext());
