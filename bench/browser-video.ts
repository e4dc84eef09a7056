// `npm run bench:browser` (`-- --runs 5`): headless Chromium plays the sample site's real video through `npm start`
// (ORIGIN_KIND=http, the shaped origin), a fresh URL each run: what the origin served of it, and whether any byte twice.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type OriginLedger, startOriginLedger } from './probes/origin-ledger.ts';
import { totalCpuSeconds } from './probes/process-cpu.ts';
import { processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { untilQuiet } from './probes/quiet.ts';
import { mb } from './report/egress-report.ts';
import { type OriginAnswers, originAnswers } from './report/origin-answers.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { CHROMIUM, chromiumInstalled, launchChromium } from './setup/chromium.ts';
import type { DevTools } from './setup/devtools.ts';
import { freePort } from './setup/free-port.ts';
import { startNpmStart } from './setup/npm-start.ts';
import { DEFAULT_PROFILE, parseProfile, shaperOptions } from './setup/origin-profiles.ts';
import { startSampleSiteOrigin } from './setup/sample-site-origin.ts';
import { startShaper } from './setup/shaper.ts';

/** Where the seek lands, as a share of the video's duration: into the last slice (the video's last 0.6 MB). */
const SEEK_AT = 0.95;
/** How long the page waits with the metadata loaded before it plays, as a reader of the page would. */
const IDLE_MS = 1000;
/** Chromium's highest: the rest of the video plays in about a second. */
const PLAYBACK_RATE = 16;
const PAGE_MS = 30_000;
const CONNECTION_LOST = /Network connection lost/g;

interface BrowserRun {
  run: number;
  url: string;
  /** What the page said: its duration, where it seeked, what it played; or why it could not. */
  playback: { duration?: number; seekTo?: number; played?: string; error?: string };
  /** The browser's requests for the video, by their Range. */
  browserRanges: string[];
  origin: OriginAnswers;
  connectionLostLines: number;
  /** Every byte of the video from the origin once at most. */
  once: boolean;
}

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, profile: { type: 'string', default: DEFAULT_PROFILE } },
});
const RUNS = Math.max(1, Math.min(10, Number(values.runs) || 3));
const profile = parseProfile(values.profile);

if (chromiumInstalled()) await main();
else console.log(`bench:browser skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

async function main(): Promise<void> {
  const startedAt = new Date();
  const stops: (() => Promise<void>)[] = [];
  try {
    const site = await startSampleSiteOrigin();
    stops.push(() => site.close());
    const atOrigin = await startOriginLedger(site.url);
    stops.push(() => atOrigin.close());
    const shaper = await startShaper(shaperOptions(profile, atOrigin.url));
    stops.push(() => shaper.close());
    const atShield = await startOriginLedger(shaper.url);
    stops.push(() => atShield.close());
    const stack = await startNpmStart({
      ORIGIN_KIND: 'http',
      ORIGIN_URL: atShield.url,
      PORT: String(await freePort()),
    });
    stops.push(() => stack.stop());
    const browser = await launchChromium();
    stops.push(() => browser.close());
    console.log(`npm start at ${stack.url} (ORIGIN_KIND=http), ${browser.version}`);
    const page = browser.page;
    const ranges = recordRanges(page);
    await page.send('Page.enable');
    await page.send('Network.enable');
    const workerd = processesNamed(stack.pid, RUNTIME_NAME);
    const signals = {
      originBytes: () => atOrigin.bodyBytes() + atShield.bodyBytes(),
      originOpen: () => atOrigin.open() + atShield.open(),
      runtimeCpu: () => totalCpuSeconds(workerd),
    };
    // The page's own <video src> (preload=metadata) is filled once first: in the runs its reads are hits, and each
    // run's fresh URL is the only video the origin is asked for.
    const warm = page.once('Page.loadEventFired', PAGE_MS);
    await page.send('Page.navigate', { url: `${stack.url}/index.html` });
    await warm;
    await untilQuiet(signals);
    const runs: BrowserRun[] = [];
    for (let run = 1; run <= RUNS; run++) {
      await untilQuiet(signals);
      const query = `?run=${run}-${randomUUID().slice(0, 8)}`;
      const printed = stack.output().length;
      const playback = await play(page, `${stack.url}/index.html`, `${site.video.path}${query}`);
      await untilQuiet(signals);
      const answers = (ledger: OriginLedger) =>
        ledger.responses().filter((r) => r.path === site.video.path && r.query === query);
      const origin = originAnswers(answers(atOrigin), answers(atShield));
      const row: BrowserRun = {
        run,
        url: `${site.video.path}${query}`,
        playback,
        browserRanges: ranges(query),
        origin,
        connectionLostLines: stack.output().slice(printed).match(CONNECTION_LOST)?.length ?? 0,
        once: origin.sent.repeatedBytes === 0 && origin.sent.sentBytes <= site.video.size,
      };
      runs.push(row);
      console.log(
        `run ${run}: ${playback.error ?? 'played'}; origin sent ${mb(origin.sent.sentBytes)} of ${mb(site.video.size)}, ${mb(origin.sent.repeatedBytes)} twice`,
      );
    }
    await report(startedAt, browser.version, site.video.size, runs);
    if (runs.some((r) => r.playback.error !== undefined)) process.exitCode = 1;
  } catch (error) {
    console.error(`bench:browser failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

/** The Range of every request the page makes, by URL: answers those of the URLs holding `query`. */
function recordRanges(page: DevTools): (query: string) => string[] {
  const urls = new Map<string, string>();
  const seen: { id: string; range: string }[] = [];
  page.on('Network.requestWillBeSent', (params) => {
    const request = params.request as { url?: string } | undefined;
    urls.set(String(params.requestId), request?.url ?? '');
  });
  // The headers as sent (the media stack adds Range below the page's view of the request).
  page.on('Network.requestWillBeSentExtraInfo', (params) => {
    const headers = (params.headers ?? {}) as Record<string, string>;
    const range = Object.entries(headers).find(([name]) => name.toLowerCase() === 'range')?.[1];
    seen.push({ id: String(params.requestId), range: range ?? 'no Range' });
  });
  return (query) => seen.filter((s) => urls.get(s.id)?.includes(query)).map((s) => s.range);
}

/** Opens the sample page, points its video at `src`, plays a second, seeks to SEEK_AT, plays to the end fast. */
async function play(page: DevTools, pageUrl: string, src: string): Promise<BrowserRun['playback']> {
  const loaded = page.once('Page.loadEventFired', PAGE_MS);
  await page.send('Page.navigate', { url: pageUrl });
  await loaded;
  const answer = await page.send<{
    result?: { value?: unknown };
    exceptionDetails?: { exception?: { description?: string } };
  }>('Runtime.evaluate', { expression: playScript(src), awaitPromise: true, returnByValue: true });
  if (answer.exceptionDetails !== undefined)
    return { error: answer.exceptionDetails.exception?.description?.split('\n')[0] ?? 'the page script failed' };
  return answer.result?.value as BrowserRun['playback'];
}

function playScript(src: string): string {
  return `(async () => {
    const video = document.querySelector('video');
    const until = (test, ms, what) => new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = () => {
        if (video.error) return reject(new Error('media error ' + video.error.code + ' ' + video.error.message));
        if (test()) return resolve();
        if (Date.now() - started > ms) return reject(new Error('no ' + what + ' in ' + ms + ' ms, at ' + video.currentTime.toFixed(2) + ' s'));
        setTimeout(poll, 50);
      };
      poll();
    });
    // The sample page's own preload=metadata: the browser reads the head of the file, then holds off.
    video.muted = true;
    video.src = ${JSON.stringify(src)};
    await until(() => video.readyState >= 1, 20000, 'metadata');
    await new Promise((resolve) => setTimeout(resolve, ${IDLE_MS}));
    await video.play();
    await until(() => video.currentTime >= 1, 20000, 'first second played');
    const seekTo = video.duration * ${SEEK_AT};
    video.currentTime = seekTo;
    await until(() => !video.seeking && video.currentTime >= seekTo, 20000, 'seek done');
    video.playbackRate = ${PLAYBACK_RATE};
    await until(() => video.ended, 60000, 'end');
    const played = [];
    for (let i = 0; i < video.played.length; i++) played.push(video.played.start(i).toFixed(1) + '–' + video.played.end(i).toFixed(1) + ' s');
    return { duration: video.duration, seekTo, played: played.join(', ') };
  })()`;
}

async function report(startedAt: Date, version: string, size: number, runs: BrowserRun[]): Promise<void> {
  const table = {
    columns: [
      'run',
      'played',
      "browser's ranges",
      'origin answers (cut)',
      'origin sent',
      'sent twice',
      'shield received',
      '"connection lost" lines',
      'each byte once',
    ],
    rows: runs.map((r) => [
      String(r.run),
      r.playback.error ?? r.playback.played ?? '?',
      r.browserRanges.join(', '),
      `${r.origin.responses} (${r.origin.cut})`,
      `${mb(r.origin.sent.sentBytes)} (${(r.origin.sent.sentBytes / size).toFixed(2)}×)`,
      mb(r.origin.sent.repeatedBytes),
      `${mb(r.origin.received.sentBytes)} (${(r.origin.received.sentBytes / size).toFixed(2)}×)`,
      String(r.connectionLostLines),
      r.once ? 'yes' : 'NO',
    ]),
  };
  const markdown = [
    `# A real browser plays the sample video, ${startedAt.toISOString()}`,
    '',
    `${describeMachine(machine())}; ${version}.`,
    '',
    `\`npm start\` as a process (\`ORIGIN_KIND=http\`, default settings) in front of the sample site served over plain HTTP, behind the shaper (profile ${profile.name}: ${profile.firstByteLatencyMs} ms first byte, ${profile.bandwidthBytesPerSec / 1e6} MB/s per connection). Headless Chromium opens the sample page, points its video (local/sample-video.mp4, ${mb(size)}) at a fresh URL (\`?run=…\`: a cold object each run), waits ${IDLE_MS / 1000} s with its metadata loaded (the page's \`preload=metadata\`), plays a second, seeks to ${SEEK_AT * 100}% of its duration and plays to the end at ${PLAYBACK_RATE}×. Counted once the origin is silent and the runtime idle: the origin's answers for that URL, as a proxy at the origin saw them (**origin sent**; sent twice: bytes of the video in two or more answers) and as a proxy in front of the shield did (**shield received**); the lines \`npm start\` printed meanwhile saying a client's connection was lost.`,
    '',
    formatTable(table),
    '',
    ...runs.map((r) => `- run ${r.run} (\`${r.url}\`): ${r.origin.detail.join('; ') || 'nothing from the origin'}.`),
    '',
  ].join('\n');
  console.log(`\n${markdown}`);
  const paths = await writeResults(
    'browser-video',
    startedAt,
    { benchmark: 'browser-video', startedAt: startedAt.toISOString(), version, size, runs },
    markdown,
  );
  console.log(`results: ${paths.join(', ')}`);
}
