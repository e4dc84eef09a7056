// `npm run stats`, as a function of its arguments and context (cli-context.ts), answering the
// exit code: find the deployment, ask it for stats.json, print it as tables (or as JSON).

import { STATS_API } from './api.ts';
import { statsRequest } from './api-request.ts';
import { callApi } from './call-api.ts';
import type { CliContext } from './cli-context.ts';
import { failureExit } from './cli-failure.ts';
import { findDeployment } from './deployment.ts';
import { parseStatsAnswer } from './stats-answer.ts';
import { parseStatsArgs, STATS_USAGE } from './stats-args.ts';
import { renderStats } from './stats-tables.ts';

export async function runStats(argv: readonly string[], context: CliContext): Promise<number> {
  try {
    const args = parseStatsArgs(argv);
    if (args.help) {
      context.out(STATS_USAGE);
      return 0;
    }
    const deployment = await findDeployment(STATS_API, args.base, context);
    const request = statsRequest(deployment);
    const stats = parseStatsAnswer(await callApi(request, context), request.url.href);
    context.out(args.json ? JSON.stringify(stats, null, 2) : renderStats(stats, deployment.base.origin));
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}
