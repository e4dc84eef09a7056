// The last step of `npm run deploy`: the edge's /__tiercache/health, asked until it answers
// 200 or the attempts run out (a new custom domain's certificate and DNS record take a little
// while to be served). Its answer is printed as it came: it says what the edge, the shield and
// the origin are (worker/health.ts).

import { CliFailure } from './command.ts';
import { type DeploySettings, routeHost } from './deploy-settings.ts';

export const HEALTH_PATH = '/__tiercache/health';
/** Two minutes at most: ATTEMPTS answers asked for, RETRY_MS apart. */
export const HEALTH_ATTEMPTS = 24;
export const HEALTH_RETRY_MS = 5_000;
const HEALTH_TIMEOUT_MS = 10_000;

export interface HealthContext {
  fetch: typeof fetch;
  sleep(ms: number): Promise<void>;
  out(text: string): void;
}

/** Where the deployment is checked: --health-url, the settings' healthUrl, or the first route's host. */
export function healthUrl(settings: DeploySettings, given: URL | undefined): URL | undefined {
  if (given !== undefined) return given;
  if (settings.edge.healthUrl !== undefined) return new URL(settings.edge.healthUrl);
  const first = settings.edge.routes[0];
  return first === undefined ? undefined : new URL(HEALTH_PATH, `https://${routeHost(first)}`);
}

/** Asks `url` until it answers 200: the answer's text; a CliFailure with the last answer otherwise. */
export async function checkHealth(url: URL, context: HealthContext): Promise<string> {
  let last = 'no answer';
  for (let attempt = 1; attempt <= HEALTH_ATTEMPTS; attempt++) {
    try {
      const response = await context.fetch(url, {
        signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
        headers: { accept: 'application/json' },
      });
      const text = await response.text();
      if (response.status === 200) return text;
      last = `${response.status} ${text}`.trim();
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (attempt < HEALTH_ATTEMPTS) {
      context.out(
        `  ${url.href}: ${last.split('\n', 1)[0]}; asking again in ${HEALTH_RETRY_MS / 1000} s (${attempt}/${HEALTH_ATTEMPTS})`,
      );
      await context.sleep(HEALTH_RETRY_MS);
    }
  }
  throw new CliFailure(`the deployment does not answer healthy at ${url.href}: ${last}`);
}
