// Entry of `npm run deploy` (docs/deploying.md): wiring only, the command is run-deploy.ts.

import { fileURLToPath } from 'node:url';
import { runDeploy } from './run-deploy.ts';
import { processSecretInput } from './secret-input.ts';
import { spawnedWrangler } from './wrangler-runner.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = (text: string): void => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
const err = (text: string): void => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);

process.exitCode = await runDeploy(process.argv.slice(2), {
  root,
  env: process.env,
  out,
  err,
  wrangler: spawnedWrangler(
    root,
    process.env,
    (text) => void process.stdout.write(text),
    (text) => void process.stderr.write(text),
  ),
  input: processSecretInput((text) => void process.stderr.write(text)),
  fetch,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
});
