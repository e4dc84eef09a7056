// `npm run stats -- [--url https://cdn.example] [--json]`: what the command was asked.

import { type Flags, parseFlags, single } from './parse-flags.ts';

export const STATS_USAGE = `usage: npm run stats -- [--url https://cdn.example] [--json]

Prints the edge's stats (GET <url>/__tiercache/stats.json) as tables.
  --url URL   the edge's base URL (default: the local stack, .build/local/stack.json from \`npm start\`)
  --json      print the JSON the edge answered instead of tables
  --help      this text
Token: STATS_TOKEN, else the local stack's (for the local stack's URL only).
Exit: 0 printed; 1 the edge could not be reached or refused; 2 usage, no local stack or no token.`;

export interface StatsArgs {
  url: string | undefined;
  json: boolean;
  help: boolean;
}

export function parseStatsArgs(argv: readonly string[]): StatsArgs {
  const flags: Flags = parseFlags(argv, { url: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } }, STATS_USAGE);
  return { url: single(flags, 'url', STATS_USAGE), json: flags.booleans.json === true, help: flags.booleans.help === true };
}
