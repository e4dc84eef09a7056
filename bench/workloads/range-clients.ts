// Range semantics as real clients see them (RFC 9110 §14): curl -r, curl -C - and wget -c resuming a cut download,
// and curl asking for two ranges at once.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { type ClientRun, describeRun, runClient } from '../load/client-binary.ts';
import { byterangesBoundary, headerFields, parseByteranges } from './byteranges.ts';

export type ClientName = 'curl' | 'wget';

export interface CheckContext {
  /** The object's URL at the edge. */
  url: string;
  size: number;
  sha256: string;
  /** The object's first bytes, enough for every range asked for here. */
  prefix: Uint8Array;
  /** An empty directory of the check's own. */
  directory: string;
}

/** What a check found: `undefined` = PASS; else what was expected and what arrived. */
interface Finding {
  command: string;
  problem: string | undefined;
  details: string;
}

export interface Check {
  name: string;
  client: ClientName;
  run(context: CheckContext): Promise<Finding>;
}

const MIB = 1024 * 1024;
const TIMEOUT_MS = 120_000;
/** A cut that is on no slice or chunk boundary: 10 MiB and 123 bytes. */
const RESUME_FROM = 10 * MIB + 123;
// -q (first): no ~/.curlrc. Never a proxy, whatever the environment says.
const CURL = ['-q', '--silent', '--show-error', '--noproxy', '*', '--max-time', String(TIMEOUT_MS / 1000)];
const WGET = ['--no-config', '--no-proxy', '--tries=1', '--timeout=60', '--progress=dot:giga'];

/** Each check runs one client against the edge and compares the bytes it saved with the object's own. */
export const CHECKS: Check[] = [
  { name: 'curl -r 1000-2000', client: 'curl', run: curlRange },
  { name: 'curl -C - (resume a cut download)', client: 'curl', run: curlResume },
  { name: 'wget -c (resume a cut download)', client: 'wget', run: wgetResume },
  { name: 'curl -r 0-9,100-109 (multipart/byteranges)', client: 'curl', run: curlMultiRange },
];

async function curlRange({ url, size, prefix, directory }: CheckContext): Promise<Finding> {
  const args = [...CURL, '-r', '1000-2000', '-D', 'head', '-o', 'body', url];
  const command = commandLine('curl', args);
  const run = await mustRun('curl', args, directory);
  const head = await lastHead(join(directory, 'head'));
  const body = await readFile(join(directory, 'body'));
  const problem =
    (run.code === 0 ? undefined : describeRun(run)) ??
    expectEqual('status', head.status, 206) ??
    expectEqual('Content-Range', head.fields.get('content-range'), `bytes 1000-2000/${size}`) ??
    expectBytes('body', body, prefix.subarray(1000, 2001));
  return {
    command,
    problem,
    details: `206, Content-Range bytes 1000-2000/${size}, ${body.length} bytes = the object's bytes 1000..2000`,
  };
}

async function curlResume({ url, size, sha256, directory }: CheckContext): Promise<Finding> {
  const file = join(directory, 'big.bin');
  const first = await mustRun('curl', [...CURL, '-o', 'big.bin', url], directory);
  if (first.code !== 0)
    return {
      command: commandLine('curl', [...CURL, '-o', 'big.bin', url]),
      problem: `first download: ${describeRun(first)}`,
      details: '',
    };
  await truncate(file, RESUME_FROM);
  const args = [...CURL, '-C', '-', '-D', 'head', '-o', 'big.bin', '-w', '%{size_download}', url];
  const run = await mustRun('curl', args, directory);
  const head = await lastHead(join(directory, 'head'));
  const problem =
    (run.code === 0 ? undefined : describeRun(run)) ??
    expectEqual('status', head.status, 206) ??
    expectEqual('Content-Range', head.fields.get('content-range'), `bytes ${RESUME_FROM}-${size - 1}/${size}`) ??
    expectEqual('bytes fetched on resume', Number(run.stdout), size - RESUME_FROM) ??
    (await expectFile(file, size, sha256));
  return {
    command: commandLine('curl', args),
    problem,
    details: `cut at ${RESUME_FROM}, resumed with 206 for ${size - RESUME_FROM} bytes, sha256 of ${size} bytes matches`,
  };
}

async function wgetResume({ url, size, sha256, directory }: CheckContext): Promise<Finding> {
  // wget names the file after the URL: in its own directory, -c must append to that very file.
  const name = new URL(url).pathname.split('/').at(-1) ?? 'index.html';
  const first = await mustRun('wget', [...WGET, url], directory);
  if (first.code !== 0)
    return {
      command: commandLine('wget', [...WGET, url]),
      problem: `first download: ${describeRun(first)}`,
      details: '',
    };
  await truncate(join(directory, name), RESUME_FROM);
  const args = [...WGET, '-c', '--server-response', url];
  const run = await mustRun('wget', args, directory);
  // --server-response prints each response head indented on stderr.
  const status = [...run.stderr.matchAll(/^\s*HTTP\/[\d.]+ (\d{3})/gm)].at(-1)?.[1];
  const contentRange = [...run.stderr.matchAll(/^\s*Content-Range:\s*(.+?)\s*$/gim)].at(-1)?.[1];
  const files = await readdir(directory);
  const problem =
    (run.code === 0 ? undefined : describeRun(run)) ??
    expectEqual('status', Number(status), 206) ??
    expectEqual('Content-Range', contentRange, `bytes ${RESUME_FROM}-${size - 1}/${size}`) ??
    expectEqual('files written', files.join(' '), name) ??
    (await expectFile(join(directory, name), size, sha256));
  return {
    command: commandLine('wget', args),
    problem,
    details: `cut at ${RESUME_FROM}, resumed with 206 into the same file, sha256 of ${size} bytes matches`,
  };
}

async function curlMultiRange({ url, size, prefix, directory }: CheckContext): Promise<Finding> {
  const args = [...CURL, '-r', '0-9,100-109', '-D', 'head', '-o', 'body', url];
  const command = commandLine('curl', args);
  const run = await mustRun('curl', args, directory);
  const head = await lastHead(join(directory, 'head'));
  const body = await readFile(join(directory, 'body'));
  const boundary = byterangesBoundary(head.fields.get('content-type'));
  const problem =
    expectEqual('status', head.status, 206) ??
    (boundary === undefined
      ? `expected Content-Type multipart/byteranges with a boundary, got ${head.fields.get('content-type')}`
      : undefined);
  if (problem !== undefined || boundary === undefined)
    return { command, problem: problem ?? (run.code === 0 ? undefined : describeRun(run)), details: '' };
  // A cut body is still parsed: which part it broke off in says more than curl's exit code.
  const parts = parseByteranges(body, boundary);
  const arrived = `${body.length} of ${head.fields.get('content-length')} bytes arrived`;
  if (run.code !== 0)
    return {
      command,
      problem: `${describeRun(run)}; ${arrived}${typeof parts === 'string' ? `, ${parts}` : ''}`,
      details: '',
    };
  if (typeof parts === 'string') return { command, problem: `${arrived}, ${parts}`, details: '' };
  const wanted = [
    { start: 0, end: 9 },
    { start: 100, end: 109 },
  ];
  const partProblem =
    expectEqual('Content-Length', head.fields.get('content-length'), String(body.length)) ??
    expectEqual('parts', parts.length, wanted.length) ??
    wanted
      .map(
        (range, i) =>
          expectEqual(
            `part ${i + 1} Content-Range`,
            parts[i]?.headers.get('content-range'),
            `bytes ${range.start}-${range.end}/${size}`,
          ) ??
          expectBytes(`part ${i + 1}`, parts[i]?.body ?? new Uint8Array(), prefix.subarray(range.start, range.end + 1)),
      )
      .find((found) => found !== undefined);
  return {
    command,
    problem: partProblem,
    details: `206 multipart/byteranges, ${parts.length} parts (0-9, 100-109) with the object's bytes`,
  };
}

async function mustRun(client: ClientName, args: readonly string[], cwd: string): Promise<ClientRun> {
  await mkdir(cwd, { recursive: true });
  const run = await runClient(client, args, { cwd, timeoutMs: TIMEOUT_MS });
  if (run === undefined) throw new Error(`${client} disappeared while the checks ran`);
  return run;
}

/** The last response head curl dumped with -D (after any 1xx or redirect heads). */
async function lastHead(path: string): Promise<{ status: number; fields: Map<string, string> }> {
  const text = await readFile(path, 'latin1').catch(() => '');
  const block =
    text
      .split('\r\n\r\n')
      .filter((head) => head.trim() !== '')
      .at(-1) ?? '';
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(block)?.[1] ?? 0);
  return { status, fields: headerFields(block) };
}

async function expectFile(path: string, size: number, sha256: string): Promise<string | undefined> {
  const length = (await stat(path)).size;
  if (length !== size) return `expected a file of ${size} bytes, got ${length}`;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const actual = hash.digest('hex');
  return actual === sha256 ? undefined : `expected sha256 ${sha256}, got ${actual}`;
}

function expectEqual<T>(what: string, actual: T, expected: T): string | undefined {
  return actual === expected
    ? undefined
    : `expected ${what} ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

function expectBytes(what: string, actual: Uint8Array, expected: Uint8Array): string | undefined {
  if (Buffer.compare(actual, expected) === 0) return undefined;
  const differ = actual.findIndex((byte, i) => byte !== expected[i]);
  return `expected ${what} to be the object's ${expected.length} bytes, got ${actual.length} bytes${differ >= 0 ? `, first difference at ${differ}` : ''}`;
}

function commandLine(client: ClientName, args: readonly string[]): string {
  return [client, ...args.map((arg) => (/^[\w./:=,@%-]+$/.test(arg) ? arg : `'${arg}'`))].join(' ');
}
