// `npm run bench:clients`: real HTTP clients against the local stack, for the range semantics (curl -r, curl -C -,
// wget -c, a curl multi-range), on the seeded 64 MiB video/big.bin.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIG_ASSET_KEY,
  BIG_ASSET_SEED,
  BIG_ASSET_SIZE,
  deterministicBytes,
  expectedSha256,
  seedSampleAssets,
} from '../local/assets.ts';
import { clientVersion } from './load/client-binary.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { withLocalStack } from './setup/local-stack.ts';
import { CHECKS, type Check, type CheckContext, type ClientName } from './workloads/range-clients.ts';

/** Enough of the object's first bytes for every range the checks ask for. */
const PREFIX_BYTES = 4096;

interface CheckResult {
  check: string;
  client: ClientName;
  version: string;
  result: 'PASS' | 'FAIL' | 'not installed';
  details: string;
  command?: string;
}

await main();

async function main(): Promise<void> {
  const startedAt = new Date();
  try {
    const versions: Record<ClientName, string | undefined> = {
      curl: await clientVersion('curl'),
      wget: await clientVersion('wget'),
    };
    const sha256 = await expectedSha256(BIG_ASSET_SEED, BIG_ASSET_SIZE);
    const prefix = await firstBytes(PREFIX_BYTES);
    const { url, results } = await withLocalStack(async ({ origin, stack }) => {
      await seedSampleAssets(origin);
      const url = new URL(BIG_ASSET_KEY, `${stack.url}/`).href;
      const results: CheckResult[] = [];
      for (const check of CHECKS)
        results.push(await runCheck(check, versions[check.client], { url, size: BIG_ASSET_SIZE, sha256, prefix }));
      return { url, results };
    });
    const table = formatTable({
      columns: ['check', 'client', 'result', 'details'],
      rows: results.map((r) => [r.check, shortVersion(r.version), r.result, r.details]),
    });
    const notes = [
      `- object: \`${BIG_ASSET_KEY}\` (seeded sample asset), ${BIG_ASSET_SIZE} bytes, sha256 \`${sha256}\`, at ${url}`,
      ...(['curl', 'wget'] as const).map((client) => `- ${client}: ${versions[client] ?? 'not installed'}`),
      `- machine: ${describeMachine(machine())}`,
    ];
    const markdown = [
      `# bench:clients, ${startedAt.toISOString()}`,
      '',
      ...notes,
      '',
      table,
      '',
      '## Commands',
      '',
      ...results.map((r) => `- ${r.check}: \`${r.command ?? '(not run)'}\``),
      '',
    ].join('\n');
    console.log(`\n${markdown}`);
    const json = {
      benchmark: 'clients',
      startedAt: startedAt.toISOString(),
      machine: machine(),
      object: { key: BIG_ASSET_KEY, size: BIG_ASSET_SIZE, sha256 },
      clients: versions,
      checks: results,
    };
    const paths = await writeResults('clients', startedAt, json, markdown);
    console.log(`results: ${paths.join(', ')}`);
    // A client that is not installed fails nothing: only one that is present and got wrong bytes (or none) does.
    process.exitCode = results.some((r) => r.result === 'FAIL') ? 1 : 0;
  } catch (error) {
    console.error(`bench:clients failed: ${describeError(error)}`);
    process.exitCode = 2;
  }
}

/** One check in a directory of its own, removed afterwards. */
async function runCheck(
  check: Check,
  version: string | undefined,
  context: Omit<CheckContext, 'directory'>,
): Promise<CheckResult> {
  const base = { check: check.name, client: check.client, version: version ?? `${check.client} (not installed)` };
  if (version === undefined)
    return { ...base, result: 'not installed', details: `${check.client} is not on PATH: skipped` };
  const directory = await mkdtemp(join(tmpdir(), 'tiercache-bench-clients-'));
  try {
    const found = await check.run({ ...context, directory });
    const result = found.problem === undefined ? 'PASS' : 'FAIL';
    console.log(`${result.padEnd(4)}  ${check.name}${found.problem ? `: ${found.problem}` : ''}`);
    return { ...base, result, details: found.problem ?? found.details, command: found.command };
  } catch (error) {
    console.log(`FAIL  ${check.name}: ${describeError(error)}`);
    return { ...base, result: 'FAIL', details: describeError(error) };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * `curl 7.88.1` of `curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 …`, `GNU Wget 1.21.3` of `GNU Wget 1.21.3 built on
 * linux-gnu.`
 */
function shortVersion(version: string): string {
  return /^.*?\d+(?:\.\d+)+/.exec(version)?.[0] ?? version;
}

async function firstBytes(length: number): Promise<Uint8Array> {
  for await (const chunk of deterministicBytes(BIG_ASSET_SEED, BIG_ASSET_SIZE)) return chunk.slice(0, length);
  return new Uint8Array();
}
