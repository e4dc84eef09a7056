// Headless Chromium (Debian's package, /usr/bin/chromium) on a fresh profile, reaching nothing but loopback, and the
// DevTools connection to its one page.

import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevTools } from './devtools.ts';

/** Debian's package; `CHROMIUM=/path npm run bench:browser` for another build. */
export const CHROMIUM = process.env.CHROMIUM?.trim() || '/usr/bin/chromium';
const START_MS = 30_000;

export interface Browser {
  page: DevTools;
  version: string;
  close(): Promise<void>;
}

export function chromiumInstalled(): boolean {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'tiercache-chromium-'));
  const child = spawn(
    CHROMIUM,
    [
      '--headless=new',
      // As root (this machine's user) Chromium's sandbox will not start.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--mute-audio',
      '--autoplay-policy=no-user-gesture-required',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Every host name fails to resolve: nothing leaves the machine (the stack is asked by its IP).
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const close = async () => {
    stopGroup(child);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await rm(profile, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    const browserUrl = await devtoolsUrl(child);
    const http = browserUrl.replace(/^ws:\/\/([^/]+)\/.*$/, 'http://$1');
    const version = ((await (await fetch(`${http}/json/version`)).json()) as { Browser?: string }).Browser ?? '?';
    const targets = (await (await fetch(`${http}/json/list`)).json()) as {
      type: string;
      webSocketDebuggerUrl: string;
    }[];
    const page = targets.find((target) => target.type === 'page');
    if (page === undefined) throw new Error('Chromium opened no page');
    return { page: await DevTools.connect(page.webSocketDebuggerUrl), version, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The browser's DevTools URL, which it prints on stderr once it listens. */
function devtoolsUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`Chromium did not start in ${START_MS / 1000} s: ${stderr}`)),
      START_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /DevTools listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve(url);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

function stopGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
