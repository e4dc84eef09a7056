// `npm run deploy` arguments: --dry-run builds both workers and says what a deploy would do,
// offline; --settings names another settings file than tiercache.config.ts; --health-url the
// address to check once deployed, when the edge's route does not serve /__tiercache/health.

import { CliFailure, EXIT_USAGE, parseFlags, single } from './command.ts';

export const DEPLOY_USAGE = `Usage: npm run deploy [-- --dry-run] [-- --settings FILE] [-- --health-url URL]

Deploys both workers from tiercache.config.ts: checks \`wrangler whoami\`, finds or creates the
KV namespace, asks for each secret a worker lacks (never echoed; or read from the environment
variable of the same name), deploys the shield, then the edge, then checks the edge's
/__tiercache/health.

  --dry-run          build both workers (wrangler deploy --dry-run) and print what a deploy
                     would do; nothing is sent to Cloudflare
  --settings FILE    the settings file (default: tiercache.config.ts)
  --health-url URL   where to check the deployment (default: https://<first route's host>/__tiercache/health)
  --help             this text`;

export interface DeployArgs {
  help: boolean;
  dryRun: boolean;
  settingsPath: string | undefined;
  healthUrl: URL | undefined;
}

export function parseDeployArgs(argv: readonly string[]): DeployArgs {
  const flags = parseFlags(
    argv,
    {
      'dry-run': { type: 'boolean' },
      settings: { type: 'string' },
      'health-url': { type: 'string' },
      help: { type: 'boolean' },
    },
    DEPLOY_USAGE,
  );
  const health = single(flags, 'health-url', DEPLOY_USAGE);
  let healthUrl: URL | undefined;
  if (health !== undefined) {
    try {
      healthUrl = new URL(health);
    } catch {
      throw new CliFailure(
        `--health-url: expected an absolute URL, got ${JSON.stringify(health)}\n\n${DEPLOY_USAGE}`,
        EXIT_USAGE,
      );
    }
  }
  return {
    help: flags.booleans.help === true,
    dryRun: flags.booleans['dry-run'] === true,
    settingsPath: single(flags, 'settings', DEPLOY_USAGE),
    healthUrl,
  };
}
