// `npm run deploy` (cli/deploy.ts) against a fake wrangler on PATH (fake-wrangler.ts): the steps in order, only the
// secrets a worker lacks, never one printed or in an argument, the health check; and the dry run, asking nothing.

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runConfig } from '../../cli/config.ts';
import { type DeployContext, runDeploy } from '../../cli/deploy.ts';
import { linesInput } from '../../cli/deploy-secrets.ts';
import { spawnedWrangler } from '../../cli/wrangler-commands.ts';
import { CONFIG_FILES, parseConfigText, UNSET_KV_ID } from '../../cli/wrangler-config.ts';
import settings from '../../tiercache.config.ts';
import { type FakeWrangler, fakeWrangler } from './fake-wrangler.ts';

const GIVEN = {
  S3_ACCESS_KEY_ID: 'AKIA-given-access-key',
  S3_SECRET_ACCESS_KEY: 'given-secret-key-9f3a',
  PURGE_TOKEN: 'given-purge-token-77',
};

interface Run {
  code: number;
  printed: string;
  asked: string[];
}

let root: string;
let fake: FakeWrangler;
let health: Server;
let healthAsks: string[];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tiercache-deploy-root-'));
  // The repository's settings with a hostname of the test's own: the example one is refused.
  await writeSettings({});
  healthAsks = [];
  health = createServer((request, response) => {
    healthAsks.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"edge":"ok","shield":"ok"}');
  });
  await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await new Promise((resolve) => health.close(resolve));
  await fake?.remove();
  await rm(root, { recursive: true, force: true });
});

async function deploy(argv: string[], answers: string[] = [], env: Record<string, string> = {}): Promise<Run> {
  const printed: string[] = [];
  const asked: string[] = [];
  const out = (text: string): void => void printed.push(text);
  const fullEnv = { PATH: fake.path, HOME: root, ...env };
  const context: DeployContext = {
    root,
    env: fullEnv,
    out,
    err: out,
    wrangler: spawnedWrangler(root, fullEnv, out, out),
    input: linesInput(answers[Symbol.iterator](), (question) => asked.push(question)),
    fetch,
    sleep: () => Promise.resolve(),
  };
  const url = `http://127.0.0.1:${(health.address() as AddressInfo).port}/__tiercache/health`;
  const code = await runDeploy(['--settings', 'settings.mjs', '--health-url', url, ...argv], context);
  return { code, printed: printed.join('\n'), asked };
}

/** The test's settings (the repository's with a hostname of its own), with `changes`. */
async function writeSettings(changes: Record<string, unknown>): Promise<void> {
  const routes = [{ pattern: 'cdn.test.example', custom_domain: true }];
  const written = { ...settings, edge: { ...settings.edge, routes }, ...changes };
  await writeFile(join(root, 'settings.mjs'), `export default ${JSON.stringify(written)};`);
}

/** `npm run config -- --settings settings.mjs` in the test's root. */
async function config(): Promise<void> {
  const printed: string[] = [];
  const code = await runConfig(['--settings', 'settings.mjs'], {
    root,
    out: (text) => printed.push(text),
    err: (text) => printed.push(text),
  });
  expect(code, printed.join('\n')).toBe(0);
}

/** A call as the command it is: `deploy shield`, `secret list edge`, `kv namespace list`. */
function step(argv: string[]): string {
  const config = argv.includes('--config') ? argv[argv.indexOf('--config') + 1] : undefined;
  const worker = config === CONFIG_FILES.shield ? 'shield' : config === CONFIG_FILES.edge ? 'edge' : '';
  const words = argv.filter(
    (word) => !word.startsWith('--') && !word.includes('/') && ![config, 'json', 'tiercache-purges'].includes(word),
  );
  return [
    ...words,
    ...(argv.includes('--dry-run') ? ['--dry-run'] : []),
    ...(words[0] === 'deploy' || words[0] === 'secret' ? [worker] : []),
  ].join(' ');
}

describe('npm run deploy', () => {
  it('checks the login, creates the KV namespace, puts the missing secrets, deploys the shield then the edge, then checks health', async () => {
    fake = await fakeWrangler();
    const run = await deploy([], [GIVEN.S3_ACCESS_KEY_ID, GIVEN.S3_SECRET_ACCESS_KEY, GIVEN.PURGE_TOKEN, '']);
    expect(run.code, run.printed).toBe(0);
    const calls = await fake.calls();
    expect(calls.map((call) => step(call.argv))).toEqual([
      'whoami',
      'kv namespace list',
      'kv namespace create',
      'kv namespace list',
      'secret list shield',
      'secret list edge',
      'deploy shield',
      'deploy edge',
    ]);
    expect(healthAsks).toEqual(['/__tiercache/health']);
    // The created namespace is the one both deployed configurations bind, written once in the settings and into
    // both committed files (wrangler.jsonc, shield/wrangler.jsonc), which the deploy deployed (--config) as they are.
    const { namespaces, workers } = await fake.state();
    const id = namespaces[0]?.id ?? '';
    expect(await readFile(join(root, 'settings.mjs'), 'utf8')).toContain(`"purgesNamespaceId":"${id}"`);
    for (const path of Object.values(CONFIG_FILES)) {
      const config = parseConfigText(await readFile(join(root, path), 'utf8'));
      expect(config.kv_namespaces).toEqual([{ binding: 'PURGES', id }]);
    }
    const deploys = calls.filter((call) => call.argv[0] === 'deploy');
    expect(deploys.map((call) => call.argv.slice(0, 3))).toEqual([
      ['deploy', '--config', 'shield/wrangler.jsonc'],
      ['deploy', '--config', 'wrangler.jsonc'],
    ]);
    expect(deploys.map((call) => call.kvIds)).toEqual([[id], [id]]);
    expect(run.printed).toContain('Commit what changed: wrangler.jsonc, shield/wrangler.jsonc, settings.mjs.');
    // Each worker got exactly the secrets it uses; the one both share is one value.
    expect(Object.keys(workers['tiercache-shield'] ?? {}).sort()).toEqual([
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'SHIELD_TOKEN',
    ]);
    expect(Object.keys(workers['tiercache-edge'] ?? {}).sort()).toEqual(['PURGE_TOKEN', 'SHIELD_TOKEN']);
    expect(workers['tiercache-edge']?.SHIELD_TOKEN).toBe(workers['tiercache-shield']?.SHIELD_TOKEN);
    expect(workers['tiercache-shield']?.S3_SECRET_ACCESS_KEY).toBe(GIVEN.S3_SECRET_ACCESS_KEY);
    expect((workers['tiercache-shield']?.SHIELD_TOKEN ?? '').length).toBeGreaterThanOrEqual(40);
  });

  it('never prints a secret, never passes one as an argument, and removes the file it handed wrangler', async () => {
    fake = await fakeWrangler();
    const run = await deploy([], [GIVEN.S3_ACCESS_KEY_ID, GIVEN.S3_SECRET_ACCESS_KEY, GIVEN.PURGE_TOKEN, '']);
    expect(run.code, run.printed).toBe(0);
    const calls = await fake.calls();
    const values = Object.values((await fake.state()).workers).flatMap((secrets) => Object.values(secrets));
    expect(values).toHaveLength(5);
    for (const value of values) {
      expect(run.printed).not.toContain(value);
      expect(run.asked.join('\n')).not.toContain(value);
      for (const call of calls) expect(call.argv.join(' ')).not.toContain(value);
    }
    const files = calls.flatMap((call) => (call.secretsFile === undefined ? [] : [call.secretsFile]));
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(file.mode).toBe(0o600);
      expect(existsSync(file.path)).toBe(false);
    }
    // It asked for what it cannot make, named, and said nothing of the values.
    expect(run.asked.map((question) => question.split(',')[0])).toEqual([
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'PURGE_TOKEN',
      'STATS_TOKEN',
      'CF_API_TOKEN',
      'EVENTS_TOKEN',
    ]);
    expect(run.printed).toContain('STATS_TOKEN: not set, the stats page stays disabled');
  });

  it('deploys again with the namespace found and no secret asked for or put when every worker has its own', async () => {
    await writeSettings({ purgesNamespaceId: 'b'.repeat(32) });
    await config();
    fake = await fakeWrangler({
      namespaces: [{ id: 'b'.repeat(32), title: 'tiercache-purges' }],
      workers: {
        'tiercache-shield': { SHIELD_TOKEN: 't', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' },
        'tiercache-edge': {
          SHIELD_TOKEN: 't',
          PURGE_TOKEN: 'p',
          STATS_TOKEN: 's',
          CF_API_TOKEN: 'c',
          EVENTS_TOKEN: 'e',
        },
      },
    });
    const run = await deploy([]);
    expect(run.code, run.printed).toBe(0);
    const calls = await fake.calls();
    expect(calls.map((call) => step(call.argv))).toEqual([
      'whoami',
      'kv namespace list',
      'secret list shield',
      'secret list edge',
      'deploy shield',
      'deploy edge',
    ]);
    expect(calls.some((call) => call.argv.includes('--secrets-file'))).toBe(false);
    expect(run.asked).toEqual([]);
    // Nothing to write: the settings had the id, the committed files were current.
    expect(run.printed).toMatch(/Deployed\.$/);
  });

  it('takes a secret from the environment variable of its name instead of asking', async () => {
    fake = await fakeWrangler();
    const run = await deploy([], [], {
      S3_ACCESS_KEY_ID: GIVEN.S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: GIVEN.S3_SECRET_ACCESS_KEY,
    });
    expect(run.code, run.printed).toBe(0);
    expect((await fake.state()).workers['tiercache-shield']?.S3_ACCESS_KEY_ID).toBe(GIVEN.S3_ACCESS_KEY_ID);
    expect(run.asked.map((question) => question.split(',')[0])).toEqual([
      'PURGE_TOKEN',
      'STATS_TOKEN',
      'CF_API_TOKEN',
      'EVENTS_TOKEN',
    ]);
  });

  it('stops before deploying anything when a required secret is not given', async () => {
    fake = await fakeWrangler();
    const run = await deploy([], [GIVEN.S3_ACCESS_KEY_ID]);
    expect(run.code).toBe(1);
    expect(run.printed).toContain('S3_SECRET_ACCESS_KEY is needed');
    expect((await fake.calls()).some((call) => call.argv[0] === 'deploy')).toBe(false);
  });

  it('stops at the login check, saying how to log in, when wrangler is not logged in', async () => {
    fake = await fakeWrangler({ loggedIn: false });
    const run = await deploy([]);
    expect(run.code).toBe(1);
    expect(run.printed).toContain('npx wrangler login');
    expect((await fake.calls()).map((call) => step(call.argv))).toEqual(['whoami']);
  });

  it('refuses the example hostname before asking Cloudflare anything', async () => {
    fake = await fakeWrangler();
    await writeFile(join(root, 'settings.mjs'), `export default ${JSON.stringify(settings)};`);
    const run = await deploy([]);
    expect(run.code).toBe(2);
    expect(run.printed).toContain('edge.routes names cdn.example.com');
    expect(await fake.calls()).toEqual([]);
  });

  it('refuses a RULES the workers would refuse before asking Cloudflare anything, naming RULES, the rule and the field', async () => {
    fake = await fakeWrangler();
    const rules = JSON.stringify([{ name: 'assets', match: { path: '/assets/*' }, edgeTtl: -1 }]);
    const routes = [{ pattern: 'cdn.test.example', custom_domain: true }];
    await writeFile(
      join(root, 'settings.mjs'),
      `export default ${JSON.stringify({ ...settings, edge: { ...settings.edge, routes }, vars: { ...settings.vars, RULES: rules } })};`,
    );
    const run = await deploy([]);
    expect(run.code).toBe(2);
    expect(run.printed).toContain('RULES rule 1 (assets): field "edgeTtl" must be whole seconds');
    expect(await fake.calls()).toEqual([]);
    // The dry run builds, and names it among what a real deploy refuses.
    await config();
    const dry = await deploy(['--dry-run']);
    expect(dry.printed).toMatch(
      /Before a real deploy, in the settings:\n {2}- RULES rule 1 \(assets\): field "edgeTtl"/,
    );
  });

  it('dry run: builds the committed shield then edge with wrangler deploy --dry-run and asks Cloudflare nothing', async () => {
    await config();
    fake = await fakeWrangler();
    const run = await deploy(['--dry-run']);
    expect(run.code, run.printed).toBe(0);
    expect((await fake.calls()).map((call) => step(call.argv))).toEqual([
      'deploy --dry-run shield',
      'deploy --dry-run edge',
    ]);
    expect(run.asked).toEqual([]);
    expect(healthAsks).toEqual([]);
    expect(run.printed).toContain('nothing was sent to Cloudflare');
    const configs = (await fake.calls()).map((call) => call.argv[call.argv.indexOf('--config') + 1]);
    expect(configs).toEqual(['shield/wrangler.jsonc', 'wrangler.jsonc']);
    const shield = parseConfigText(await readFile(join(root, CONFIG_FILES.shield), 'utf8'));
    expect((shield.kv_namespaces as { id: string }[])[0]?.id).toBe(UNSET_KV_ID);
  });

  it('dry run: warns of a placement on an anycast gateway, citing Cloudflare, and still builds', async () => {
    await writeSettings({ vars: { ...settings.vars, ORIGIN_URL: 'https://gateway.storjshare.io' } });
    await config();
    fake = await fakeWrangler();
    const run = await deploy(['--dry-run']);
    expect(run.code, run.printed).toBe(0);
    expect(run.printed).toContain('WARNING: the shield is placed next to gateway.storjshare.io');
    expect(run.printed).toContain('developers.cloudflare.com/workers/configuration/placement/');
  });

  it('dry run: refuses configuration files that are not what the settings say, saying to run npm run config', async () => {
    fake = await fakeWrangler();
    const absent = await deploy(['--dry-run']);
    expect(absent.code).toBe(2);
    expect(absent.printed).toContain(
      'wrangler.jsonc and shield/wrangler.jsonc are not what tiercache.config.ts says: run `npm run config`',
    );
    await config();
    // Edited by hand: the next `npm run config` would undo it.
    const edge = join(root, CONFIG_FILES.edge);
    await writeFile(edge, (await readFile(edge, 'utf8')).replace('"preview_urls": false', '"preview_urls": true'));
    const stale = await deploy(['--dry-run']);
    expect(stale.code).toBe(2);
    expect(stale.printed).toContain('wrangler.jsonc is not what tiercache.config.ts says: run `npm run config`');
    expect(await fake.calls()).toEqual([]);
  });
});
