// What both peers' launchers share: a base URL taken apart for a config file, templates filled in, and a daemon run
// in the foreground from a temporary directory and waited for until it answers (ports: ../free-port.ts).

import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A path each peer answers itself (204), so that waiting for it never reaches the origin. */
export const READY_PATH = '/__peer_ready';
/** Seconds a response without Cache-Control or Expires is kept: tiercache's DEFAULT_TTL for S3. */
export const DEFAULT_TTL = 3600;

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;
const STDERR_KEPT = 4096;

/** A cache under test, started by this process; `url` has no trailing slash. */
export interface Peer {
  name: string;
  url: string;
  version: string;
  stop(): Promise<void>;
}

/** An origin base URL, taken apart as the peers' configs need it. */
export interface OriginAddress {
  host: string;
  port: number;
  /** `host:port`, for the Host header. */
  authority: string;
  /** The path objects live under, without the trailing slash: '' or e.g. '/bucket'. */
  path: string;
}

export interface Daemon {
  child: ChildProcess;
  directory: string;
  /** The last few KiB the daemon wrote to stderr: why it failed to start, usually. */
  stderr(): string;
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * `origin` as `http://host:port/optional/prefix`: plain HTTP only, since neither peer signs or speaks TLS upstream
 * here.
 */
export function parseOrigin(origin: string): OriginAddress {
  const url = new URL(origin);
  if (url.protocol !== 'http:') throw new Error(`peer origin must be an http: URL, got ${origin}`);
  if (url.search || url.hash || url.username)
    throw new Error(`peer origin must be a base URL without query, fragment or credentials, got ${origin}`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 80);
  return { host, port, authority: url.host, path: url.pathname.replace(/\/+$/, '') };
}

/**
 * Reads the template beside this file (or in `directory`, a folder's file URL ending in `/`: the sim's tier configs)
 * and replaces every `{{NAME}}`; a name without a value is an error.
 */
export async function fillTemplate(
  file: string,
  values: Record<string, string | number>,
  directory: URL = new URL('./', import.meta.url),
): Promise<string> {
  const template = await readFile(new URL(`./${file}`, directory), 'utf8');
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${file}: no value for {{${name}}}`);
    return String(value);
  });
}

/**
 * A fresh temporary directory others may enter (both daemons drop privileges when run as root),
 * readied by `prepare` (config files written); removed again if that fails.
 */
export async function temporaryDirectory(name: string, prepare: (directory: string) => Promise<void>): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), `tiercache-${name}-`));
  try {
    chmodSync(directory, 0o755);
    await prepare(directory);
    return directory;
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Spawns `bin` in the foreground, owning `directory`: stop() ends it (SIGTERM, SIGKILL after
 * STOP_TIMEOUT_MS) and removes the directory; so does this process's exit, synchronously.
 */
export function startDaemon(name: string, bin: string, args: string[], directory: string): Daemon {
  const child = spawn(bin, args, { cwd: directory, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  let running = true;
  const exited = new Promise<void>((resolve) => {
    const done = () => {
      running = false;
      resolve();
    };
    child.once('exit', done).once('error', (error) => {
      stderr += `\n${name}: ${error.message}`;
      done();
    });
  });
  const onExit = () => {
    if (running) child.kill('SIGTERM');
    rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    if (running) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(directory, { recursive: true, force: true });
  };
  return { child, directory, running: () => running, stderr: () => stderr.trim(), stop };
}

/**
 * Resolves once `url` + READY_PATH answers 204; rejects, quoting the daemon's stderr, if it exits or takes too long.
 */
export async function waitUntilReady(name: string, daemon: Daemon, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!daemon.running()) break;
    const status = await fetch(`${url}${READY_PATH}`, { signal: AbortSignal.timeout(1000) }).then(
      (response) => response.body?.cancel().then(() => response.status) ?? response.status,
      () => 0,
    );
    if (status === 204) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stderr = daemon.stderr();
  await daemon.stop();
  const how =
    daemon.child.exitCode !== null
      ? `exited with status ${daemon.child.exitCode}`
      : `did not answer within ${READY_TIMEOUT_MS / 1000} s`;
  throw new Error(`${name} ${how}${stderr ? `: ${stderr}` : ''}`);
}
