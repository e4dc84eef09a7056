// `npm run stats -- [--base https://cdn.example] [--json]`: what the command was asked.

import { CliFailure, EXIT_USAGE } from './cli-failure.ts';
import { DEPLOYMENT_FLAG, DEPLOYMENT_USAGE } from './deployment.ts';
import { type Flags, parseFlags, single } from './parse-flags.ts';

export const STATS_USAGE = `usage: npm run stats -- [--base https://cdn.example] [--json]

Prints the edge's stats (GET <base>/__tiercache/stats.json) as tables.
${DEPLOYMENT_USAGE}
  --json          print the JSON the edge answered instead of tables
  --help          this text
Token: STATS_TOKEN, else the local stack's (for the local stack's URL only).
Exit: 0 printed; 1 the edge could not be reached or refused; 2 usage, no local stack or no token.`;

export interface StatsArgs {
  base: string | undefined;
  json: boolean;
  help: boolean;
}

export function parseStatsArgs(argv: readonly string[]): StatsArgs {
  // --url is parsed only to be refused with the flag to use: it names an object in `npm run purge`.
  const flags: Flags = parseFlags(
    argv,
    {
      [DEPLOYMENT_FLAG]: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    STATS_USAGE,
  );
  if ((flags.strings.url ?? []).length > 0) {
    throw new CliFailure(
      `npm run stats names the deployment with --${DEPLOYMENT_FLAG} https://cdn.example, as npm run purge does (--url is purge's flag for an object)\n\n${STATS_USAGE}`,
      EXIT_USAGE,
    );
  }
  return {
    base: single(flags, DEPLOYMENT_FLAG, STATS_USAGE),
    json: flags.booleans.json === true,
    help: flags.booleans.help === true,
  };
}
