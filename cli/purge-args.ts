// `npm run purge -- --url /a.png --prefix /img/ --tag blog --everything [--base https://cdn.example]`:
// what to purge, each flag repeatable and kept in order, and where. Which values the edge
// accepts (a prefix starts with "/", at most 30 values …) is the edge's to say (shared/purge/
// purge.ts): its 400 names what it expected, and the CLI prints it, rather than keep a copy of the rules.

import type { PurgeTargets } from './api-request.ts';
import { CliFailure, EXIT_USAGE } from './cli-failure.ts';
import { DEPLOYMENT_FLAG, DEPLOYMENT_USAGE } from './deployment.ts';
import { parseFlags, single } from './parse-flags.ts';

export const PURGE_USAGE = `usage: npm run purge -- [--url URL]... [--prefix PATH]... [--tag TAG]... [--everything] [--base https://cdn.example]

Purges what the edge and the shield hold (POST <base>/__tiercache/purge); name at least one target.
  --url URL       one object: a path (/a.png) or an absolute URL (https://cdn.example/a.png); repeatable
  --prefix PATH   every path starting with PATH (starting with /, like /img/); repeatable
  --tag TAG       every response whose Cache-Tag holds TAG; repeatable
  --everything    everything stored so far
${DEPLOYMENT_USAGE}
  --help          this text
Token: PURGE_TOKEN, else the local stack's (for the local stack's URL only).
Exit: 0 accepted; 1 the edge could not be reached or refused; 2 usage, no target, no local stack or no token.`;

export interface PurgeArgs {
  targets: PurgeTargets;
  base: string | undefined;
  help: boolean;
}

export function parsePurgeArgs(argv: readonly string[]): PurgeArgs {
  const flags = parseFlags(
    argv,
    {
      url: { type: 'string' },
      prefix: { type: 'string' },
      tag: { type: 'string' },
      everything: { type: 'boolean' },
      [DEPLOYMENT_FLAG]: { type: 'string' },
      help: { type: 'boolean' },
    },
    PURGE_USAGE,
  );
  const targets: PurgeTargets = {
    urls: flags.strings.url ?? [],
    prefixes: flags.strings.prefix ?? [],
    tags: flags.strings.tag ?? [],
    everything: flags.booleans.everything === true,
  };
  const help = flags.booleans.help === true;
  const count = targets.urls.length + targets.prefixes.length + targets.tags.length;
  if (!help && count === 0 && !targets.everything) {
    throw new CliFailure(
      `nothing to purge: name at least one --url, --prefix, --tag or --everything\n\n${PURGE_USAGE}`,
      EXIT_USAGE,
    );
  }
  return { targets, base: single(flags, DEPLOYMENT_FLAG, PURGE_USAGE), help };
}
