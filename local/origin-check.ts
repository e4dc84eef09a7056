// `npm start`'s one look at the origin once the stack is up: the edge's health answer (worker/health.ts),
// which asks the shield, which asks the origin with the configured credentials.

import { HEALTH_PATH } from '../shared/request/reserved-paths.ts';

/** Longer than the edge waits for the shield, which waits for the origin's answer. */
const CHECK_WAIT_MS = 10_000;

/**
 * The banner line: the origin's state and why, or why the health endpoint gave none. The stack runs
 * on whatever it says, so wrong credentials can be tried locally and are named at once.
 */
export async function checkOrigin(edgeUrl: string): Promise<string> {
  let answer: Response;
  try {
    answer = await fetch(new URL(HEALTH_PATH, edgeUrl), { signal: AbortSignal.timeout(CHECK_WAIT_MS) });
  } catch (error) {
    return `  check   the health endpoint did not answer (${error instanceof Error ? error.message : String(error)})`;
  }
  const body = (await answer.json().catch(() => undefined)) as { origin?: unknown; originDetail?: unknown } | undefined;
  if (typeof body?.origin !== 'string' || typeof body.originDetail !== 'string')
    return `  check   the health endpoint answered ${answer.status} without a finding`;
  const verdict = answer.ok ? 'serves' : `CANNOT SERVE (${HEALTH_PATH} answers ${answer.status})`;
  return `  check   origin ${body.origin}: ${verdict}; ${body.originDetail}`;
}
