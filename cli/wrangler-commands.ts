// What a deploy asks of wrangler (cli/deploy.ts), each one wrangler command through the Wrangler port: the login, the
// KV namespace found or created, the secrets a worker has, a worker deployed (its secrets in a file of this user's) or
// built offline; and the port as a deploy runs it, the project's wrangler as a child process.

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliFailure } from './cli-failure.ts';

/** How deploy runs wrangler: a port (the tests put a recording stub first on PATH); `show`: its output shown too. */
export type Wrangler = (args: readonly string[], call?: { show?: boolean }) => Promise<WranglerResult>;

interface WranglerResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The wrangler on `env.PATH` (npm puts the project's own first), run in `cwd` with stdin closed (wrangler fails
 * rather than asks, and the deploy says why), its output captured; shown output goes to `out` and `err`.
 */
export function spawnedWrangler(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  out: (text: string) => void,
  err: (text: string) => void,
): Wrangler {
  return (args, call = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn('wrangler', [...args], {
        cwd,
        env: { ...env } as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const stdout: string[] = [];
      const stderr: string[] = [];
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout.push(chunk);
        if (call.show) out(chunk);
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr.push(chunk);
        if (call.show) err(chunk);
      });
      child.on('error', (error) =>
        reject(
          new CliFailure(
            `could not run wrangler (${error.message}): run the deploy with \`npm run deploy\`, which puts the project's wrangler on PATH`,
          ),
        ),
      );
      child.on('close', (code) => resolve({ code: code ?? 1, stdout: stdout.join(''), stderr: stderr.join('') }));
    });
}

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

/** The id of the KV namespace `title` in the account `configPath` deploys to: found or created (`created` says). */
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

/**
 * Deploys the worker `configPath` describes, with `secrets` added: in a file of this user's (0600, in a 0700 folder)
 * named by --secrets-file and removed once done, never in an argument or a log.
 */
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
