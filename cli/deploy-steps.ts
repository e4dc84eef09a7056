// The steps of `npm run deploy` that ask Cloudflare something, each one wrangler command
// (wrangler-runner.ts): who is logged in, the purge list's KV namespace (found by title, or
// created), the secrets a worker already has, and the deploy of one worker with the secrets it
// lacks. A secret reaches wrangler only in a file of this user's (0600, in a 0700 folder)
// named by --secrets-file, removed once the deploy is done; never in an argument or a log.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliFailure } from './command.ts';
import type { Wrangler, WranglerResult } from './wrangler-runner.ts';

/** The login `wrangler whoami` reports; a CliFailure saying how to log in when there is none. */
export async function checkLogin(wrangler: Wrangler): Promise<string> {
  const result = await wrangler(['whoami', '--json']);
  if (result.code !== 0)
    throw new CliFailure(
      `wrangler is not logged in to Cloudflare: run \`npx wrangler login\` (or set CLOUDFLARE_API_TOKEN), then deploy again\n${detail(result)}`,
    );
  try {
    const who = JSON.parse(result.stdout) as { email?: unknown; accounts?: { name?: unknown }[] };
    const accounts = (who.accounts ?? []).map((account) => String(account.name ?? '')).filter(Boolean);
    return `${typeof who.email === 'string' ? who.email : 'logged in'}${accounts.length > 0 ? ` (${accounts.join(', ')})` : ''}`;
  } catch {
    return 'logged in';
  }
}

/** The id of the KV namespace titled `title` in the account `configPath` deploys to: found, or created (`created` says which). */
export async function purgesNamespaceId(
  wrangler: Wrangler,
  title: string,
  configPath: string,
): Promise<{ id: string; created: boolean }> {
  const found = await namespaceByTitle(wrangler, title, configPath);
  if (found !== undefined) return { id: found, created: false };
  const created = await wrangler(['kv', 'namespace', 'create', title, '--config', configPath]);
  if (created.code !== 0)
    throw new CliFailure(`could not create the KV namespace ${JSON.stringify(title)}\n${detail(created)}`);
  // By title again: wrangler's words around the id are not an interface.
  const id = (await namespaceByTitle(wrangler, title, configPath)) ?? /\b([0-9a-f]{32})\b/.exec(created.stdout)?.[1];
  if (id === undefined)
    throw new CliFailure(
      `created the KV namespace ${JSON.stringify(title)}, but found no id for it\n${detail(created)}`,
    );
  return { id, created: true };
}

async function namespaceByTitle(wrangler: Wrangler, title: string, configPath: string): Promise<string | undefined> {
  const listed = await wrangler(['kv', 'namespace', 'list', '--config', configPath]);
  if (listed.code !== 0) throw new CliFailure(`could not list the account's KV namespaces\n${detail(listed)}`);
  let namespaces: unknown;
  try {
    namespaces = JSON.parse(listed.stdout);
  } catch {
    throw new CliFailure(
      `expected \`wrangler kv namespace list\` to print JSON, got ${JSON.stringify(listed.stdout.slice(0, 200))}`,
    );
  }
  if (!Array.isArray(namespaces)) return undefined;
  const match = (namespaces as { id?: unknown; title?: unknown }[]).find(
    (namespace) => namespace.title === title && typeof namespace.id === 'string',
  );
  return match?.id as string | undefined;
}

/** The names of the secrets the worker `configPath` deploys already has; none for a worker not deployed yet. */
export async function presentSecrets(wrangler: Wrangler, configPath: string): Promise<Set<string>> {
  const listed = await wrangler(['secret', 'list', '--config', configPath, '--format', 'json']);
  // A worker that does not exist yet has no secrets (wrangler says it found no such worker).
  if (listed.code !== 0) return new Set();
  try {
    const secrets = JSON.parse(listed.stdout) as { name?: unknown }[];
    return new Set(secrets.map((secret) => secret.name).filter((name): name is string => typeof name === 'string'));
  } catch {
    return new Set();
  }
}

/** Deploys the worker `configPath` describes, with `secrets` added to those it has. */
export async function deployWorker(
  wrangler: Wrangler,
  configPath: string,
  secrets: Readonly<Record<string, string>>,
): Promise<void> {
  const folder = Object.keys(secrets).length > 0 ? await mkdtemp(join(tmpdir(), 'tiercache-deploy-')) : undefined;
  try {
    const args = ['deploy', '--config', configPath];
    if (folder !== undefined) {
      const file = join(folder, 'secrets.json');
      await writeFile(file, JSON.stringify(secrets), { mode: 0o600 });
      args.push('--secrets-file', file);
    }
    const result = await wrangler(args, { show: true });
    if (result.code !== 0) throw new CliFailure(`wrangler deploy --config ${configPath} failed (exit ${result.code})`);
  } finally {
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  }
}

/** Builds the worker `configPath` describes without uploading it, into `outdir`. */
export async function buildWorker(wrangler: Wrangler, configPath: string, outdir: string): Promise<void> {
  const result = await wrangler(['deploy', '--dry-run', '--config', configPath, '--outdir', outdir]);
  if (result.code !== 0)
    throw new CliFailure(
      `wrangler deploy --dry-run --config ${configPath} failed (exit ${result.code})\n${detail(result)}`,
    );
}

/** What wrangler said, for a failure's message (it never carries a secret: none is in its arguments). */
function detail(result: WranglerResult): string {
  return `${result.stderr}${result.stdout}`.trim().split('\n').slice(-20).join('\n');
}
