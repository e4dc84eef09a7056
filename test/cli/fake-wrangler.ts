// A stand-in for Cloudflare behind wrangler, for the tests of `npm run deploy`: an executable
// named `wrangler` in a folder the test puts first on PATH. It records each call (its
// arguments, and for a deploy the secrets file it was handed: the names, the file's mode, and
// the values, as Cloudflare would hold them), keeps an account's state in a JSON file (KV
// namespaces, deployed workers and their secrets) and answers the commands the deploy uses as
// wrangler 4 does: `whoami --json`, `kv namespace list|create`, `secret list --format json`
// (failing for a worker not deployed yet), `deploy [--dry-run] --config … [--secrets-file …]`. A deploy records the
// KV namespace id the configuration binds, as Cloudflare would.

import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

interface FakeCall {
  argv: string[];
  /** For `deploy --secrets-file`: what the file held and its mode, and that it was there. */
  secretsFile?: { path: string; mode: number; secrets: Record<string, string> };
  /** For a deploy: the KV namespace ids its configuration binds. */
  kvIds?: string[];
}

export interface FakeState {
  loggedIn: boolean;
  namespaces: { id: string; title: string }[];
  /** Worker name → the names and values of its secrets; a worker is deployed once it is a key here. */
  workers: Record<string, Record<string, string>>;
}

export interface FakeWrangler {
  /** PATH with the fake first. */
  path: string;
  folder: string;
  calls(): Promise<FakeCall[]>;
  state(): Promise<FakeState>;
  remove(): Promise<void>;
}

const SCRIPT = String.raw`#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const dir = __dirname;
const statePath = path.join(dir, 'state.json');
const state = JSON.parse(fs.readFileSync(statePath, 'utf8'));
const argv = process.argv.slice(2);
const flag = (name) => { const at = argv.indexOf(name); return at < 0 ? undefined : argv[at + 1]; };
const call = { argv };
const save = () => fs.writeFileSync(statePath, JSON.stringify(state));
// A configuration as wrangler reads it: JSONC (the generated files open with comment lines).
const readConfig = (config) => JSON.parse(fs.readFileSync(path.resolve(process.cwd(), config), 'utf8').split('\n').filter((line) => !line.startsWith('//')).join('\n'));
const workerOf = (config) => readConfig(config).name;
const done = (code, out = '', err = '') => {
  fs.appendFileSync(path.join(dir, 'calls.jsonl'), JSON.stringify(call) + '\n');
  if (out) process.stdout.write(out);
  if (err) process.stderr.write(err);
  process.exit(code);
};
const [a, b, c] = argv;
if (a === 'whoami') {
  if (!state.loggedIn) done(1, '', 'You are not authenticated. Please run wrangler login.\n');
  done(0, JSON.stringify({ loggedIn: true, email: 'ops@example.com', accounts: [{ id: 'acc', name: 'Example account' }] }));
}
if (a === 'kv' && b === 'namespace' && c === 'list') done(0, JSON.stringify(state.namespaces.map((n) => ({ ...n, supports_url_encoding: true }))));
if (a === 'kv' && b === 'namespace' && c === 'create') {
  const id = (state.namespaces.length + 1).toString(16).padStart(32, 'a');
  state.namespaces.push({ id, title: argv[3] });
  save();
  done(0, 'Resource location: remote\nCreating namespace with title "' + argv[3] + '"\nSuccess!\n[[kv_namespaces]]\nbinding = "' + argv[3] + '"\nid = "' + id + '"\n');
}
if (a === 'secret' && b === 'list') {
  const secrets = state.workers[workerOf(flag('--config'))];
  if (secrets === undefined) done(1, '', 'This Worker does not exist on your account. [code: 10007]\n');
  done(0, JSON.stringify(Object.keys(secrets).map((name) => ({ name, type: 'secret_text' }))));
}
if (a === 'deploy') {
  const name = workerOf(flag('--config'));
  if (argv.includes('--dry-run')) done(0, 'Total Upload: 1 KiB\n--dry-run: exiting now.\n');
  const file = flag('--secrets-file');
  const secrets = state.workers[name] ?? {};
  call.kvIds = (readConfig(flag('--config')).kv_namespaces ?? []).map((namespace) => namespace.id);
  if (file !== undefined) {
    const held = JSON.parse(fs.readFileSync(file, 'utf8'));
    call.secretsFile = { path: file, mode: fs.statSync(file).mode & 0o777, secrets: held };
    Object.assign(secrets, held);
  }
  state.workers[name] = secrets;
  save();
  done(0, 'Uploaded ' + name + '\nDeployed ' + name + ' triggers\n');
}
done(2, '', 'fake wrangler: unexpected call ' + JSON.stringify(argv) + '\n');
`;

export async function fakeWrangler(initial: Partial<FakeState> = {}): Promise<FakeWrangler> {
  const folder = await mkdtemp(join(tmpdir(), 'tiercache-fake-wrangler-'));
  const state: FakeState = { loggedIn: true, namespaces: [], workers: {}, ...initial };
  await writeFile(join(folder, 'state.json'), JSON.stringify(state));
  await writeFile(join(folder, 'calls.jsonl'), '');
  await writeFile(join(folder, 'wrangler'), SCRIPT);
  await chmod(join(folder, 'wrangler'), 0o755);
  return {
    path: `${folder}${delimiter}${process.env.PATH ?? ''}`,
    folder,
    async calls() {
      const text = await readFile(join(folder, 'calls.jsonl'), 'utf8');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FakeCall);
    },
    state: async () => JSON.parse(await readFile(join(folder, 'state.json'), 'utf8')) as FakeState,
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}
