// `npm run bench:players`: real players, handed a signed playlist URL alone. `npm start` (ORIGIN_KIND=http,
// SIGNED_PREFIXES=/video/) in front of an origin holding the sample video remuxed four ways (bench/setup/
// player-renditions.ts: HLS with TS segments, with fMP4 segments, a byte-range playlist, DASH); headless Chromium opens
// a page on another origin (bench/setup/player-page.ts) and plays each with hls.js or dash.js from a URL whose query is
// a folder token, with no cookie: it plays, seeks and plays on. Counted: every answer the page got, the origin's
// answers for each segment (each sent once), and what the token opens outside its folder (nothing).

import { randomBytes } from 'node:crypto';
import { type SignOptions, signToken } from '../shared/admission/signer.ts';
import { type OriginLedger, startOriginLedger } from './probes/origin-ledger.ts';
import { untilQuiet } from './probes/quiet.ts';
import { originAnswers } from './report/origin-answers.ts';
import { type CaseResult, playersReport } from './report/players-report.ts';
import { describeError, writeResults } from './report/results.ts';
import { CHROMIUM, chromiumInstalled, launchChromium } from './setup/chromium.ts';
import type { DevTools } from './setup/devtools.ts';
import { freePort } from './setup/free-port.ts';
import { startNpmStart } from './setup/npm-start.ts';
import { startPlayerPage } from './setup/player-page.ts';
import { type PlayerCase, playerRenditions, type Renditions } from './setup/player-renditions.ts';
import { startAssetOrigin } from './setup/sample-site-origin.ts';
import { type Playback, playerScript } from './workloads/player-script.ts';

const KEY_ID = 'bench';
const SECRET = randomBytes(32).toString('base64url');
const PAGE_MS = 30_000;

if (chromiumInstalled()) await main();
else console.log(`bench:players skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

async function main(): Promise<void> {
  const startedAt = new Date();
  const stops: (() => Promise<void>)[] = [];
  try {
    const renditions = playerRenditions();
    const origin = await startAssetOrigin(renditions.objects);
    stops.push(() => origin.close());
    const ledger = await startOriginLedger(origin.url);
    stops.push(() => ledger.close());
    const page = await startPlayerPage();
    stops.push(() => page.close());
    const stack = await startNpmStart({
      ORIGIN_KIND: 'http',
      ORIGIN_URL: ledger.url,
      SIGNED_PREFIXES: '/video/',
      SIGNING_KEYS: `${KEY_ID}=${SECRET}`,
      CORS_ALLOW_ORIGINS: page.origin,
      PORT: String(await freePort()),
    });
    stops.push(() => stack.stop());
    const browser = await launchChromium();
    stops.push(() => browser.close());
    console.log(`npm start at ${stack.url}, the page at ${page.url}, ${browser.version}`);
    const seen = recordRequests(browser.page, stack.url);
    await browser.page.send('Network.enable');
    await browser.page.send('Page.enable');
    const quiet = { originBytes: () => ledger.bodyBytes(), originOpen: () => ledger.open(), runtimeCpu: () => 0 };
    const results: CaseResult[] = [];
    for (const playerCase of renditions.cases) {
      const token = await signToken(folderToken(playerCase.folder));
      const url = `${stack.url}${playerCase.playlist}?${token}`;
      const loaded = browser.page.once('Page.loadEventFired', PAGE_MS);
      await browser.page.send('Page.navigate', { url: page.url });
      await loaded;
      seen.clear();
      const playback = await play(browser.page, playerCase, url);
      await untilQuiet(quiet);
      const result: CaseResult = {
        name: playerCase.name,
        player: playerCase.player,
        url: `${playerCase.playlist}?${token.replace(/tc_sig=[^&]+/, 'tc_sig=…')}`,
        playback,
        requests: seen.requests(),
        origin: originOnce(playerCase, renditions, ledger),
        outside: await outside(playerCase, renditions, stack.url, token),
      };
      results.push(result);
      console.log(`${playerCase.name}: ${playback.error ?? `played ${playback.played}`}`);
    }
    const { markdown, json, failed } = playersReport(startedAt, browser.version, page.versions, renditions, results);
    console.log(`\n${markdown}`);
    const paths = await writeResults('players', startedAt, json, markdown);
    console.log(`results: ${paths.join(', ')}`);
    if (failed) process.exitCode = 1;
  } catch (error) {
    console.error(`bench:players failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

function folderToken(folder: string): SignOptions {
  return { keyId: KEY_ID, secret: SECRET, path: folder, prefix: true, expires: Math.floor(Date.now() / 1000) + 3600 };
}

async function play(page: DevTools, playerCase: PlayerCase, url: string): Promise<Playback> {
  const answer = await page.send<{
    result?: { value?: unknown };
    exceptionDetails?: { exception?: { description?: string } };
  }>('Runtime.evaluate', { expression: playerScript(playerCase.player, url), awaitPromise: true, returnByValue: true });
  if (answer.exceptionDetails !== undefined)
    return { error: answer.exceptionDetails.exception?.description?.split('\n')[0] ?? 'the page script failed' };
  return answer.result?.value as Playback;
}

/** The page's requests to the stack: each one's status, and whether it carried a cookie. */
function recordRequests(page: DevTools, stackUrl: string) {
  const urls = new Map<string, string>();
  const statuses = new Map<string, number>();
  const cookies = new Set<string>();
  page.on('Network.requestWillBeSent', (params) => {
    const url = (params.request as { url?: string } | undefined)?.url ?? '';
    if (url.startsWith(stackUrl)) urls.set(String(params.requestId), url);
  });
  page.on('Network.requestWillBeSentExtraInfo', (params) => {
    const headers = (params.headers ?? {}) as Record<string, string>;
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'cookie')) cookies.add(String(params.requestId));
  });
  page.on('Network.responseReceived', (params) => {
    const response = params.response as { status?: number } | undefined;
    statuses.set(String(params.requestId), response?.status ?? 0);
  });
  return {
    clear() {
      urls.clear();
      statuses.clear();
      cookies.clear();
    },
    requests: () =>
      [...urls].map(([id, url]) => ({
        path: new URL(url).pathname,
        status: statuses.get(id) ?? 0,
        cookie: cookies.has(id),
      })),
  };
}

/** The origin's answers for each medium the case names: how many, the bytes sent, any byte sent twice. */
function originOnce(playerCase: PlayerCase, renditions: Renditions, ledger: OriginLedger): CaseResult['origin'] {
  return playerCase.media.map((path) => {
    const answers = ledger.responses().filter((r) => r.path === path && r.method === 'GET');
    const sent = originAnswers(answers, []).sent;
    return {
      path,
      size: renditions.objects.get(path)?.body.byteLength ?? 0,
      answers: answers.length,
      sentBytes: sent.sentBytes,
      repeatedBytes: sent.repeatedBytes,
    };
  });
}

/**
 * What this case's token opens outside its folder: each other case's playlist and first medium, asked for with it
 * (no cookie); every answer should be a 403.
 */
async function outside(playerCase: PlayerCase, renditions: Renditions, stackUrl: string, token: string) {
  const paths = renditions.cases
    .filter((other) => other.folder !== playerCase.folder)
    .flatMap((other) => [other.playlist, other.media[0] ?? other.playlist]);
  return Promise.all(
    paths.map(async (path) => {
      const response = await fetch(`${stackUrl}${path}?${token}`);
      await response.body?.cancel();
      return { path, status: response.status };
    }),
  );
}
