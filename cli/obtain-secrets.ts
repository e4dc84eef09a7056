// The values of the secrets the workers lack (deploy-secrets.ts says which and why), gathered
// before anything is deployed: from the environment variable of the same name when it is set,
// else asked for (secret-input.ts, never echoed), SHIELD_TOKEN made here. What is printed
// names secrets, never their values.

import { CliFailure } from './command.ts';
import { generatedToken, missingSecrets, type SecretSpec, type Worker } from './deploy-secrets.ts';
import type { SecretInput } from './secret-input.ts';

export interface SecretSources {
  env: Readonly<Record<string, string | undefined>>;
  input: SecretInput;
  out(text: string): void;
}

export type WorkerSecrets = Record<Worker, Record<string, string>>;

/** Each worker's secrets to put, by name; a CliFailure when a required one is not given. */
export async function obtainSecrets(
  specs: readonly SecretSpec[],
  present: Readonly<Record<Worker, ReadonlySet<string>>>,
  sources: SecretSources,
): Promise<WorkerSecrets> {
  const secrets: WorkerSecrets = { shield: {}, edge: {} };
  for (const spec of missingSecrets(specs, present)) {
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
  if (spec.source === 'generated') return generatedToken();
  const empty = spec.source === 'optional' ? `; empty: ${spec.unset ?? 'left off'}` : '';
  const answer = await sources.input.ask(`${spec.name}, ${spec.purpose} (not echoed${empty}): `);
  if (answer !== undefined && answer !== '') return answer;
  if (spec.source === 'optional') return undefined;
  throw new CliFailure(
    `${spec.name} is needed (${spec.purpose}): type it when asked, or set the environment variable ${spec.name}`,
  );
}
