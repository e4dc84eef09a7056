// `npm start`'s configuration path, as a user meets it: the real local/start.ts in a process of
// its own, given settings that cannot work, with the embedded origin and with an origin of the
// user's. It reports every one of them in one run, by name, and exits 1 before serving anything.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_WAIT_MS = 30_000;

/** Runs `npm start`'s script with only these settings (and PORT=0); answers its exit code and what it printed. */
function start(settings: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'local/start.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...settings },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A stack that started after all is stopped as Ctrl-C stops it (workerd with it), then failed.
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      reject(new Error(`npm start did not stop within ${START_WAIT_MS} ms:\n${stdout}${stderr}`));
    }, START_WAIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm start with settings that cannot work', () => {
  it('with the embedded origin: names a misspelt ORIGIN_KIND and S3_ADDRESSING and an out-of-range SLICE_PARALLEL, all in one run', async () => {
    const run = await start({ ORIGIN_KIND: 's33', S3_ADDRESSING: 'vhost', SLICE_PARALLEL: '100' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      [
        'tiercache: cannot start: 3 settings cannot work:',
        '  ORIGIN_KIND must be one of s3|http, got "s33"',
        '  S3_ADDRESSING must be one of path|virtual, got "vhost"',
        '  SLICE_PARALLEL must be an integer from 1 to 64 (slices in flight per download and per isolate), got "100"',
        '',
      ].join('\n'),
    );
    expect(run.stdout).not.toContain('ready');
  });

  it("with an origin of the user's: names every missing S3 setting and a read-ahead out of range, all in one run", async () => {
    const run = await start({ ORIGIN_URL: 'http://127.0.0.1:9', SLICE_READAHEAD: '50' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      [
        'tiercache: cannot start: 4 settings cannot work:',
        '  S3_BUCKET is required when ORIGIN_KIND=s3',
        '  S3_ACCESS_KEY_ID is required when ORIGIN_KIND=s3',
        '  S3_SECRET_ACCESS_KEY is required when ORIGIN_KIND=s3',
        '  SLICE_READAHEAD must be an integer from 1 to 8 (at most 8 slices and 64 MiB in flight, with SLICE_SIZE 8 MiB), got "50"',
        '',
      ].join('\n'),
    );
  });

  it('refuses ORIGIN_KIND=http without ORIGIN_URL, before any origin or worker starts', async () => {
    const run = await start({ ORIGIN_KIND: 'http' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'tiercache: cannot start: ORIGIN_KIND=http needs ORIGIN_URL, the site to front (without ORIGIN_URL, npm start runs an embedded S3 origin: unset ORIGIN_KIND for it)\n',
    );
    expect(run.stdout).toBe('');
  });

  it('names a single bad setting on the one line', async () => {
    const run = await start({ ORIGIN_KIND: 'http', ORIGIN_URL: 'http://127.0.0.1:9', MEMORY_CACHE_SIZE: '1GiB' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'tiercache: cannot start: MEMORY_CACHE_SIZE must be at most 64MiB (an isolate has 128 MB in all), got 1073741824 bytes\n',
    );
  });

  it('names a RULES that cannot work: the rule and the field, before serving anything', async () => {
    const rules = JSON.stringify([{ name: 'html', match: { extension: 'html' }, edgeTtl: 60, override: 'yes' }]);
    const run = await start({ ORIGIN_KIND: 'http', ORIGIN_URL: 'http://127.0.0.1:9', RULES: rules });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('tiercache: cannot start: RULES rule 1 (html): field "override" must be true or false\n');
    expect(run.stdout).not.toContain('ready');
  });
});
