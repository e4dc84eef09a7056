// `npm run bench:abandoned` (`-- --profile sg` for another origin distance): what downloads nobody waits for any more
// cost the origin, through both tiers in `http` mode (default settings) in front of origins that make every fill
// whole: Python's http.server (it ignores Range) serving a 256 MiB file, and an origin whose chunked answer never ends;
// each behind the shaper, with a counting proxy on either side. Each case on a fresh stack. Writes abandoned.{json,md}.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { deterministicBytes } from '../local/assets.ts';
import { type Stack, startWorkers } from '../local/workers.ts';
import { parseConfig, type RawConfig } from '../shared/config/config.ts';
import { readRange } from './load/range-read.ts';
import { type OriginLedger, type OriginResponse, startOriginLedger } from './probes/origin-ledger.ts';
import { countOutputLines } from './probes/output-lines.ts';
import { totalCpuSeconds } from './probes/process-cpu.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { QUIET, untilQuiet } from './probes/quiet.ts';
import { type AbandonedRow, type AbandonedRun, abandonedMarkdown, mb } from './report/abandoned-report.ts';
import { describeError, describeMachine, machine, writeResults } from './report/results.ts';
import { LEAVES_HEADER, startDepartureSwitch, TOLD_LINE } from './setup/departure-switch.ts';
import { startEndlessOrigin } from './setup/endless-origin.ts';
import { DEFAULT_PROFILE, type OriginProfile, parseProfile, shaperOptions } from './setup/origin-profiles.ts';
import { startShaper } from './setup/shaper.ts';
import { Stops } from './setup/signals.ts';
import { startStaticFileServer } from './setup/static-file-server.ts';

const MIB = 2 ** 20;
/** The range-ignoring object: as large as the review's. */
const FILE_BYTES = 256 * MIB;
const FILE_SEED = 0xab4d;
/** What each departing client of the file reads before it leaves (a player's first look). */
const READ_BYTES = MIB;
/** Query-busted keys (`?1` … `?20`): in http mode each is a key of its own, so each abort a fill of its own. */
const BUSTED = 20;
/** How long the client of the endless answer waits before it leaves (nothing comes: the answer is held until whole). */
const HELD_MS = 2000;
/** How long a client that waits for the endless answer waits at most. */
const WAIT_LIMIT_MS = 60_000;
/**
 * How long the origin is watched after the last client left, at most: long enough for an endless answer to reach
 * UNKNOWN_LENGTH_MAX (512 MiB) at 25 MB/s (the review counted 20 s; the run before the fix watched that long).
 */
const WATCH_MS = 30_000;
/** The harness's edge: the real one, which a client can tell that it left before its answer's head. */
const DEPARTING_EDGE = 'bench/setup/departing-edge.js';
/** A year: the file's Last-Modified, so the heuristic (RFC 9111 §4.2.2) gives it freshness and the tiers store it. */
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** An origin behind the shaper, counted on either side of it. */
interface Chain {
  url: string;
  atOrigin: OriginLedger;
  atShield: OriginLedger;
}

interface Case {
  name: string;
  clients: string;
  chain: Chain;
  /** What the origin may send after the last client left, and what that is. */
  budget: number;
  budgetBasis: string;
  /**
   * Its clients; resolves once the last has left (or had its answer). `note` says what else it measured, `sent` being
   * what the origin has sent of the case so far.
   */
  run(
    base: string,
    sent: () => number,
  ): Promise<{ clientBytes: number; exact: boolean; answer?: AbandonedRow['answer']; note?: string }>;
}

const { values } = parseArgs({ options: { profile: { type: 'string', default: DEFAULT_PROFILE } } });
const profile = parseProfile(values.profile);
const stops = new Stops();
await main();
stops.releaseSignals();

async function main(): Promise<void> {
  const startedAt = new Date();
  try {
    const directory = await mkdtemp(join(tmpdir(), 'tiercache-abandoned-'));
    stops.push(() => rm(directory, { recursive: true, force: true }));
    console.log(`writing a ${mb(FILE_BYTES)} file …`);
    const file = await collect(deterministicBytes(FILE_SEED, FILE_BYTES));
    const path = join(directory, 'movie.bin');
    await writeFile(path, file);
    const lastYear = new Date(Date.now() - YEAR_MS);
    await utimes(path, lastYear, lastYear);
    const statics = await startStaticFileServer(directory);
    stops.push(() => statics.close());
    const endless = await startEndlessOrigin();
    stops.push(() => endless.close());
    const fileChain = await chain(statics.url, profile);
    const endlessChain = await chain(endless.url, profile);
    const config: RawConfig = { ORIGIN_KIND: 'http', SHIELD_TOKEN: randomUUID(), LOG_SAMPLE: '0' };
    const parsed = parseConfig({ ...config, ORIGIN_URL: fileChain.url });
    const { sliceSize } = parsed.slicing;
    const { abandonedFillMax, unknownLengthMax } = parsed.fills;
    const whole = { start: 0, end: FILE_BYTES - 1 };
    const cut = (base: string, query: string) =>
      readRange(`${base}/movie.bin${query}`, file, {
        label: `bytes=0- cut at ${READ_BYTES / MIB} MiB`,
        range: 'bytes=0-',
        expect: whole,
        cutAfter: READ_BYTES,
      });
    const cases: Case[] = [
      {
        name: `${FILE_BYTES / MIB} MiB file, Range ignored`,
        clients: `one \`bytes=0-\` read ${READ_BYTES / MIB} MiB and left`,
        chain: fileChain,
        budget: abandonedFillMax,
        budgetBasis: 'ABANDONED_FILL_MAX: the fill left',
        run: async (base) => {
          const read = await cut(base, '');
          return { clientBytes: read.bytes, exact: read.exact };
        },
      },
      {
        name: `${BUSTED} query-busted keys of it (\`?1\` … \`?${BUSTED}\`)`,
        clients: `${BUSTED} \`bytes=0-\`, one after another, each read ${READ_BYTES / MIB} MiB and left`,
        chain: fileChain,
        budget: BUSTED * abandonedFillMax,
        budgetBasis: `${BUSTED} × ABANDONED_FILL_MAX: a fill left each`,
        run: async (base) => {
          let clientBytes = 0;
          let exact = true;
          for (let n = 1; n <= BUSTED; n++) {
            const read = await cut(base, `?${n}`);
            clientBytes += read.bytes;
            exact &&= read.exact;
          }
          return { clientBytes, exact };
        },
      },
      {
        name: 'endless chunked answer, its client gone, heard (as deployed)',
        clients: `one GET waited ${HELD_MS / 1000} s (no byte: held until whole) and left, the edge told so (departing-edge.js); after: from when the edge was told`,
        chain: endlessChain,
        budget: abandonedFillMax,
        budgetBasis: 'ABANDONED_FILL_MAX: the fill left',
        run: async (base, sent) => {
          const departure = await startDepartureSwitch();
          try {
            const leaving = waitedAnswer(`${base}/endless.bin?heard`, HELD_MS, { [LEAVES_HEADER]: departure.url });
            await delay(HELD_MS);
            const atLeave = { sent: sent(), at: performance.now() };
            const told = toldEdge();
            departure.leave();
            const got = await leaving;
            await Promise.race([told, delay(WATCH_MS)]);
            // Locally the edge shares workerd's thread with the shield filling at full speed, and hears the harness late.
            const note = `told ${((performance.now() - atLeave.at) / 1000).toFixed(2)} s after its client left, the origin having sent ${mb(sent() - atLeave.sent)} meanwhile (workerd locally runs the edge on the thread the shield fills on at full speed; deployed, the runtime tells the edge at once)`;
            return { clientBytes: got.bytes, exact: got.status === 0, note };
          } finally {
            await departure.close();
          }
        },
      },
      {
        name: 'endless chunked answer, its client gone, unheard (workerd locally)',
        clients: `one GET waited ${HELD_MS / 1000} s (no byte: held until whole) and closed its connection`,
        chain: endlessChain,
        budget: unknownLengthMax,
        budgetBasis: 'UNKNOWN_LENGTH_MAX: locally a closed connection is heard only once written to',
        run: async (base) => {
          const got = await waitedAnswer(`${base}/endless.bin?unheard`, HELD_MS);
          return { clientBytes: got.bytes, exact: got.status === 0 };
        },
      },
      {
        name: 'endless chunked answer, its client waiting',
        clients: `one GET waited for its answer (≤ ${WAIT_LIMIT_MS / 1000} s)`,
        chain: endlessChain,
        budget: abandonedFillMax,
        budgetBasis: 'ABANDONED_FILL_MAX: in flight when the fill stopped with its answer',
        run: async (base) => {
          const got = await waitedAnswer(`${base}/endless.bin?waiting`, WAIT_LIMIT_MS);
          return {
            clientBytes: got.bytes,
            exact: got.status >= 500,
            answer: { status: got.status, cacheStatus: got.cacheStatus, ms: got.ms },
          };
        },
      },
    ];
    const rows: AbandonedRow[] = [];
    for (const each of cases) {
      const row = await runCase(each, { ...config, ORIGIN_URL: each.chain.atShield.url });
      rows.push(row);
      console.log(
        `${row.case}: origin sent ${mb(row.sentBefore)} before the last client left, ${mb(row.sentAfter)} after${row.stillSending ? ' (still sending)' : ''}`,
      );
    }
    await report({
      benchmark: 'abandoned',
      startedAt: startedAt.toISOString(),
      sliceSize,
      profile,
      watchMs: WATCH_MS,
      rows,
    });
    if (!rows.every((row) => row.exact)) process.exitCode = 1;
  } catch (error) {
    console.error(`bench:abandoned failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    await stops.all();
  }
}

/** `target` behind the shaper, a counting proxy on either side. */
async function chain(target: string, shaping: OriginProfile): Promise<Chain> {
  const atOrigin = await startOriginLedger(target);
  stops.push(() => atOrigin.close());
  const shaper = await startShaper(shaperOptions(shaping, atOrigin.url));
  stops.push(() => shaper.close());
  const atShield = await startOriginLedger(shaper.url);
  stops.push(() => atShield.close());
  return { url: atShield.url, atOrigin, atShield };
}

/**
 * One case on a stack of its own: its clients, then the origin watched until silent (at most WATCH_MS). The edge is the
 * real one, which a client carrying LEAVES_HEADER can tell that it left (departing-edge.js).
 */
async function runCase(each: Case, config: RawConfig): Promise<AbandonedRow> {
  const stack: Stack = await startWorkers({ config, port: 0, entries: { edge: DEPARTING_EDGE } });
  try {
    const pids = procAvailable() ? processesNamed(process.pid, RUNTIME_NAME) : [];
    const { atOrigin, atShield } = each.chain;
    const first = { origin: atOrigin.responses().length, shield: atShield.responses().length };
    const sent = () => bodyBytes(atOrigin.responses().slice(first.origin));
    const received = () => bodyBytes(atShield.responses().slice(first.shield));
    const ran = await each.run(stack.url, sent);
    const [sentBefore, receivedBefore] = [sent(), received()];
    const quiet = await untilQuiet(
      {
        originBytes: () => atOrigin.bodyBytes() + atShield.bodyBytes(),
        originOpen: () => atOrigin.open() + atShield.open(),
        runtimeCpu: () => totalCpuSeconds(pids),
      },
      { ...QUIET, limitMs: WATCH_MS },
    );
    const answers = atOrigin.responses().slice(first.origin);
    return {
      case: each.name,
      clients: each.clients,
      clientBytes: ran.clientBytes,
      exact: ran.exact,
      sentBefore,
      sentAfter: sent() - sentBefore,
      receivedAfter: received() - receivedBefore,
      answers: answers.length,
      cut: answers.filter((answer) => !answer.complete).length,
      budget: each.budget,
      budgetBasis: each.budgetBasis,
      stillSending: !quiet,
      answer: ran.answer,
      note: ran.note,
    };
  } finally {
    await stack.dispose();
  }
}

/**
 * A GET that waits for its answer at most `limitMs`, then leaves; what it got by then: the status (0: none), its
 * Cache-Status, the body bytes, and how long it waited.
 */
function waitedAnswer(
  url: string,
  limitMs: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; cacheStatus: string; bytes: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    let status = 0;
    let cacheStatus = '';
    let bytes = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      pending.destroy();
      resolve({ status, cacheStatus, bytes, ms: performance.now() - started });
    };
    const pending = request(url, { agent: false, headers }, (response) => {
      status = response.statusCode ?? 0;
      cacheStatus = String(response.headers['cache-status'] ?? '');
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', finish);
      response.on('error', finish);
    });
    const timer = setTimeout(finish, limitMs);
    pending.on('error', finish);
    pending.end();
  });
}

async function report(run: AbandonedRun): Promise<void> {
  const markdown = abandonedMarkdown(run, [
    `# Abandoned fills, ${run.startedAt}`,
    '',
    describeMachine(machine()),
    '',
    `Both tiers as \`npm start\` runs them in \`http\` mode (${run.sliceSize / MIB} MiB slices, default settings), each case on a fresh stack, in front of an origin behind the shaper (profile ${run.profile.name}: ${run.profile.firstByteLatencyMs} ms first byte, ${run.profile.bandwidthBytesPerSec / 1e6} MB/s per connection): Python's \`http.server\` serving a ${FILE_BYTES / MIB} MiB file (it ignores Range: every fill is whole), or an origin whose chunked answer never ends. Counted by a TCP proxy at the origin (**origin sent**, judged; over loopback the socket buffers take megabytes of an answer at once) and one in front of the shield (**shield received**: what crossed the shaped link); **after** is from the moment the last client left (or had its answer) until the origin was silent and the runtime idle, watched ${run.watchMs / 1000} s at most. The **budget after** is what fills left by their clients may still pull (ABANDONED_FILL_MAX each, by default one slice), or for a held answer whose client's departure the tier cannot hear, the most a body without a length may be (UNKNOWN_LENGTH_MAX). A client that leaves before its answer's head is heard by the edge as deployed (the runtime aborts its request's signal); locally workerd hears a closed connection only once it writes to it, so the heard case tells the edge through a harness entry wrapping the real one (bench/setup/departing-edge.js).`,
  ]);
  console.log(`\n${markdown}`);
  const paths = await writeResults('abandoned', new Date(run.startedAt), run, markdown);
  console.log(`results: ${paths.join(', ')}`);
}

/** Settles once the harness's edge prints that it was told its client left (departing-edge.js). */
function toldEdge(): Promise<void> {
  return new Promise((resolve) => {
    const watch = countOutputLines(TOLD_LINE, () => {
      watch.stop();
      resolve();
    });
  });
}

function bodyBytes(answers: readonly OriginResponse[]): number {
  return answers.reduce((sum, answer) => sum + answer.bodyBytes, 0);
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}
