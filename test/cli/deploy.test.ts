// `npm run deploy` (cli/deploy.ts) against a fake wrangler on PATH (fake-wrangler.ts): the steps in order, only the
// secrets a worker lacks, never one printed or in an argument, the health check; and the dry run, asking nothing.

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DeployContext, runDeploy, spawnedWrangler } from '../../cli/deploy.ts';
import { CONFIG_PATHS, DRY_RUN_KV_ID, linesInput } from '../../cli/wrangler-config.ts';
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
  await writeFile(
    join(root, 'settings.mjs'),
    `export default ${JSON.stringify({ ...settings, edge: { ...settings.edge, routes: [{ pattern: 'cdn.test.example', custom_domain: true }] } })};`,
  );
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

/** A call as the command it is: `deploy shield`, `secret list edge`, `kv namespace list`. */
function step(argv: string[]): string {
  const config = argv[argv.indexOf('--config') + 1];
  const worker = config === CONFIG_PATHS.shield ? 'shield' : config === CONFIG_PATHS.edge ? 'edge' : '';
  const words = argv.filter(
    (word) => !word.startsWith('--') && !word.includes('/') && word !== 'json' && word !== 'tiercache-purges',
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
    // The created namespace is the one both deployed configurations bind.
    const { namespaces, workers } = await fake.state();
    for (const path of Object.values(CONFIG_PATHS)) {
      const config = JSON.parse(await readFile(join(root, path), 'utf8')) as { kv_namespaces: { id: string }[] };
      expect(config.kv_namespaces).toEqual([{ binding: 'PURGES', id: namespaces[0]?.id }]);
    }
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
    ]);
    expect(run.printed).toContain('STATS_TOKEN: not set, the stats page stays disabled');
  });

  it('deploys again with the namespace found and no secret asked for or put when every worker has its own', async () => {
    fake = await fakeWrangler({
      namespaces: [{ id: 'b'.repeat(32), title: 'tiercache-purges' }],
      workers: {
        'tiercache-shield': { SHIELD_TOKEN: 't', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' },
        'tiercache-edge': { SHIELD_TOKEN: 't', PURGE_TOKEN: 'p', STATS_TOKEN: 's', CF_API_TOKEN: 'c' },
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
  });

  it('takes a secret from the environment variable of its name instead of asking', async () => {
    fake = await fakeWrangler();
    const run = await deploy([], [], {
      S3_ACCESS_KEY_ID: GIVEN.S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: GIVEN.S3_SECRET_ACCESS_KEY,
    });
    expect(run.code, run.printed).toBe(0);
    expect((await fake.state()).workers['tiercache-shield']?.S3_ACCESS_KEY_ID).toBe(GIVEN.S3_ACCESS_KEY_ID);
    expect(run.asked.map((question) => question.split(',')[0])).toEqual(['PURGE_TOKEN', 'STATS_TOKEN', 'CF_API_TOKEN']);
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
    const dry = await deploy(['--dry-run']);
    expect(dry.printed).toMatch(
      /Before a real deploy, in the settings:\n {2}- RULES rule 1 \(assets\): field "edgeTtl"/,
    );
  });

  it('dry run: builds the shield then the edge with wrangler deploy --dry-run and asks Cloudflare nothing', async () => {
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
    const shield = JSON.parse(await readFile(join(root, CONFIG_PATHS.shield), 'utf8')) as {
      kv_namespaces: { id: string }[];
    };
    expect(shield.kv_namespaces[0]?.id).toBe(DRY_RUN_KV_ID);
  });
});
