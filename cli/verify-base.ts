// Where a verify run goes (cli/verify.ts): its base, --base or a local stack's, the local stack's note for that base (its
// sample objects; its tokens only for its own edge), and the tokens: from the environment, else the note.

import type { CliContext } from './command.ts';
import { type Api, baseUrl, DEPLOYMENT_FLAG, headerSafe } from './edge-api.ts';
import { chooseLocalStack, type LocalStack, readLocalStacks, stackAt, stackWithLocation } from './local-stacks.ts';

/**
 * The local stack's note for `base`: its own edge's (URL, tokens, sample objects), or the stack's whose other location
 * it is (sample objects only); undefined for any other base.
 */
function localNoteAt(stacks: readonly LocalStack[], base: URL): LocalStack | undefined {
  const own = stackAt(stacks, base);
  if (own !== undefined) return own;
  // Another location of a local stack: its sample objects, never the tokens of the stack's own edge.
  const elsewhere = stackWithLocation(stacks, base);
  return elsewhere === undefined ? undefined : { url: base.origin, path: elsewhere.path };
}

/** The token for `api`: its environment variable (refused if no header can carry it), else the note's; or none. */
export function tokenFor(api: Api, note: LocalStack | undefined, context: CliContext): string | undefined {
  return headerSafe(context.env[api.tokenName], api.tokenName) ?? note?.[api.stackField];
}

/** The run's base: --base, else the local stack's edge (--port's when several run), with its note if it is local. */
export async function findBase(
  flag: string | undefined,
  port: number | undefined,
  context: CliContext,
): Promise<{ base: URL; note: LocalStack | undefined }> {
  const stacks = await readLocalStacks(context.stacksDir);
  if (flag === undefined) {
    // chooseLocalStack says what to pass when none runs, or several do.
    const note = chooseLocalStack(stacks, port);
    return { base: baseUrl(note.url, 'the local stack url'), note };
  }
  const base = baseUrl(flag, `--${DEPLOYMENT_FLAG}`);
  return { base, note: localNoteAt(stacks, base) };
}
