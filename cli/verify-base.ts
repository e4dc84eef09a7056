// Where a verify run goes (cli/verify.ts): its base, --base or a local stack's, the local stack's note for that base (its
// sample objects; its tokens only for its own edge), and the tokens: from the environment, else the note.

import { type Api, type CliContext, CliFailure, DEPLOYMENT_FLAG, EXIT_USAGE, type LocalStack } from './command.ts';
import { chooseLocalStack, readLocalStacks, stackAt, stackWithLocation } from './local-stacks.ts';

/**
 * The local stack's note when it runs at `base` (or, with no base, the note's own stack), else undefined: the one place
 * this command reads a stack note, for its URL, its tokens and the sample objects.
 */
export async function localNoteFor(
  base: URL | undefined,
  port: number | undefined,
  context: CliContext,
): Promise<LocalStack | undefined> {
  const stacks = await readLocalStacks(context.stacksDir);
  if (base === undefined) return chooseLocalStack(stacks, port);
  const own = stackAt(stacks, base);
  if (own !== undefined) return own;
  // Another location of a local stack: its sample objects, never the tokens of the stack's own edge.
  const elsewhere = stackWithLocation(stacks, base);
  return elsewhere === undefined ? undefined : { url: base.origin, path: elsewhere.path };
}

/** The token for `api`: its environment variable, else the local stack's for its own URL; undefined when neither. */
export function tokenFor(api: Api, note: LocalStack | undefined, context: CliContext): string | undefined {
  const fromEnv = context.env[api.tokenName]?.trim();
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return note?.[api.stackField];
}

/** The run's base: --base, else the local stack's edge (--port's when several run), with its note if it is local. */
export async function findBase(
  flag: string | undefined,
  port: number | undefined,
  context: CliContext,
): Promise<{ base: URL; note: LocalStack | undefined }> {
  if (flag === undefined) {
    // chooseLocalStack says what to pass when none runs, or several do.
    const note = await localNoteFor(undefined, port, context);
    if (note === undefined)
      throw new CliFailure(`no local stack: start it with \`npm start\`, or pass --${DEPLOYMENT_FLAG}`, EXIT_USAGE);
    return { base: new URL(note.url), note };
  }
  const base = URL.canParse(flag) ? new URL(flag) : undefined;
  if (base === undefined || (base.protocol !== 'http:' && base.protocol !== 'https:') || base.username !== '')
    throw new CliFailure(
      `expected --${DEPLOYMENT_FLAG} to be the edge's base URL, like https://cdn.example; got ${JSON.stringify(flag)}`,
      EXIT_USAGE,
    );
  return { base, note: await localNoteFor(base, undefined, context) };
}
