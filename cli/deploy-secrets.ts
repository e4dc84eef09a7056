// The secrets a deployment puts beside each worker's configuration (docs/configuration.md): SHIELD_TOKEN made here
// (random, the same on both workers: the edge presents it, the shield checks it), the others read from the
// environment variable of their name (CI) or asked for. A secret is never printed, logged or echoed: what is printed
// names secrets, never their values.

import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { CliFailure } from './cli-failure.ts';
import type { CliContext } from './command.ts';
import type { Worker } from './deploy-settings.ts';
import { OPTIONAL_SECRETS } from './optional-secrets.ts';

export interface SecretSpec {
  name: string;
  /** The workers it is put on. */
  workers: readonly Worker[];
  /** What a missing one means, said when it is asked for. */
  purpose: string;
  /** Required: the deploy stops without it. Optional: empty leaves the feature off. Generated: made here. */
  source: 'required' | 'optional' | 'generated';
  /** Only for an S3 origin (ORIGIN_KIND=s3). */
  s3Only?: boolean;
  /** What leaving an optional one unset means. */
  unset?: string;
}

/** Bytes of a generated SHIELD_TOKEN (256 bits). */
const TOKEN_BYTES = 32;

const SECRETS: readonly SecretSpec[] = [
  {
    name: 'SHIELD_TOKEN',
    workers: ['shield', 'edge'],
    purpose: 'the credential the edge presents to the shield',
    source: 'generated',
  },
  {
    name: 'S3_ACCESS_KEY_ID',
    workers: ['shield'],
    purpose: 'the access key the shield signs origin requests with',
    source: 'required',
    s3Only: true,
  },
  {
    name: 'S3_SECRET_ACCESS_KEY',
    workers: ['shield'],
    purpose: 'the secret key the shield signs origin requests with',
    source: 'required',
    s3Only: true,
  },
  ...OPTIONAL_SECRETS,
];

/** The secrets a deployment of `originKind` uses. */
export function secretsFor(originKind: string | undefined): SecretSpec[] {
  return SECRETS.filter((spec) => !spec.s3Only || (originKind ?? 's3') === 's3');
}

export type SecretSources = Pick<CliContext, 'env' | 'out'> & { input: SecretInput };

/**
 * Each worker's secrets to put, by name: each one a worker lacks; a CliFailure when a required one is not given.
 * SHIELD_TOKEN is made anew when either worker lacks it (a secret cannot be read back, so the other's copy cannot
 * be reused), and then put on both.
 */
export async function obtainSecrets(
  specs: readonly SecretSpec[],
  present: Readonly<Record<Worker, ReadonlySet<string>>>,
  sources: SecretSources,
): Promise<Record<Worker, Record<string, string>>> {
  const secrets: Record<Worker, Record<string, string>> = { shield: {}, edge: {} };
  const missing = specs.filter((spec) => spec.workers.some((worker) => !present[worker].has(spec.name)));
  for (const spec of missing) {
    const value = await secretValue(spec, sources);
    if (value === undefined) {
      sources.out(`  ${spec.name}: not set, ${spec.unset ?? 'left off'}`);
      continue;
    }
    // A generated one goes to every worker that uses it; the others to the worker lacking them.
    const workers =
      spec.source === 'generated' ? spec.workers : spec.workers.filter((worker) => !present[worker].has(spec.name));
    for (const worker of workers) secrets[worker][spec.name] = value;
    sources.out(
      `  ${spec.name}: ${spec.source === 'generated' && sources.env[spec.name] === undefined ? 'made anew' : 'given'}, put on ${workers.join(' and ')}`,
    );
  }
  return secrets;
}

async function secretValue(spec: SecretSpec, sources: SecretSources): Promise<string | undefined> {
  const fromEnv = sources.env[spec.name];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (spec.source === 'generated') return randomBytes(TOKEN_BYTES).toString('base64url');
  const empty = spec.source === 'optional' ? `; empty: ${spec.unset ?? 'left off'}` : '';
  const answer = await sources.input.ask(`${spec.name}, ${spec.purpose} (not echoed${empty}): `);
  if (answer !== undefined && answer !== '') return answer;
  if (spec.source === 'optional') return undefined;
  throw new CliFailure(
    `${spec.name} is needed (${spec.purpose}): type it when asked, or set the environment variable ${spec.name}`,
  );
}

/**
 * Where a secret asked for is read. On a terminal: typed without echo (raw mode; nothing is written back for a key
 * but the line end once it is entered), Ctrl-C stops the deploy. Otherwise (CI, a pipe): one line of standard
 * input per question. The question goes to standard error; the answer is never written anywhere.
 */
export interface SecretInput {
  /** The answer to `question`, or undefined when there is no more input. */
  ask(question: string): Promise<string | undefined>;
}

/** Ctrl-C and Ctrl-D in raw mode. */
const INTERRUPT = '\u0003';
const END = '\u0004';
const BACKSPACE = new Set(['\u007f', '\b']);

/** The process's own input: hidden on a terminal, one line per question otherwise. */
export function processSecretInput(prompt: (text: string) => void): SecretInput {
  if (process.stdin.isTTY) return terminalInput(prompt);
  return linesInput(createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator](), prompt);
}

/** One line of `lines` per question (trailing whitespace and a CR dropped). */
export function linesInput(
  lines: AsyncIterator<string> | Iterator<string>,
  prompt: (text: string) => void,
): SecretInput {
  return {
    async ask(question) {
      prompt(question);
      const next = await lines.next();
      return next.done ? undefined : String(next.value).replace(/\s+$/, '');
    },
  };
}

function terminalInput(prompt: (text: string) => void): SecretInput {
  return {
    ask: (question) =>
      new Promise((resolve) => {
        prompt(question);
        const stdin = process.stdin;
        let typed = '';
        const finish = (value: string | undefined): void => {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          resolve(value);
        };
        const onData = (chunk: string): void => {
          for (const key of chunk) {
            if (key === INTERRUPT) {
              stdin.setRawMode(false);
              process.stderr.write('\n');
              process.exit(130);
            }
            if (key === END || key === '\r' || key === '\n') {
              // Ctrl-D on an empty line is the end of input; a line end, even on an empty one, is an answer.
              finish(key === END && typed === '' ? undefined : typed);
              return;
            }
            typed = BACKSPACE.has(key) ? typed.slice(0, -1) : typed + key;
          }
        };
        stdin.setEncoding('utf8');
        stdin.setRawMode(true);
        stdin.resume();
        stdin.on('data', onData);
      }),
  };
}
