// `npm run purge`, as a function of its arguments and context (cli-context.ts), answering the
// exit code: what to purge, on which deployment; the edge's answer printed as what it accepted
// and when that reaches every location.

import { PURGE_API } from './api.ts';
import { purgeRequest } from './api-request.ts';
import { callApi } from './call-api.ts';
import type { CliContext } from './cli-context.ts';
import { failureExit } from './cli-failure.ts';
import { findDeployment } from './deployment.ts';
import { parsePurgeAnswer, renderPurgeAnswer } from './purge-answer.ts';
import { PURGE_USAGE, parsePurgeArgs } from './purge-args.ts';

export async function runPurge(argv: readonly string[], context: CliContext): Promise<number> {
  try {
    const args = parsePurgeArgs(argv);
    if (args.help) {
      context.out(PURGE_USAGE);
      return 0;
    }
    const deployment = await findDeployment(PURGE_API, args.base, context);
    const request = purgeRequest(deployment, args.targets);
    const answer = parsePurgeAnswer(await callApi(request, context), request.url.href);
    context.out(`${deployment.base.origin}: ${renderPurgeAnswer(answer)}`);
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}
