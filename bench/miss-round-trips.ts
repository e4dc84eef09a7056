// `npm run bench:miss-round-trips`: how many sequential round trips a cold GET's first byte costs on each hop, for a
// small object and a large sliced one. An edge in a workerd process of its own (local/location.ts) reaches the stack's
// shield through a counting proxy, the shield the origin through another and a shaped link (its latency holds each
// answer's first byte): each proxy records when every request came and when its answer began, so the requests
// before the first byte, and the longest chain of them one after another (each asked once the one before it was
// answered), are counted per hop. Writes bench/results/<ts>/miss-round-trips.{json,md}.

import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { bundleWorker } from '../local/bundle.ts';
import { startLocation } from '../local/location.ts';
import { startWorkers } from '../local/workers.ts';
import { type OriginLedger, type OriginResponse, startOriginLedger } from './probes/origin-ledger.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { startOriginThread } from './setup/origin-thread.ts';
import { Stops } from './setup/signals.ts';

const MIB = 2 ** 20;
/** The origin link's first byte: far above what the tiers take locally, so a round trip to it stands out. */
const ORIGIN_LINK_MS = 150;
const ROUNDS = 3;
const GET_TIMEOUT_MS = 60_000;

/** What one hop saw before the first byte. */
interface Hop {
  /** Requests asked before the first byte. */
  requests: number;
  /** The longest chain of them, each asked after the one before it was answered. */
  sequential: number;
  /** Each request: what it asked, ms from the client's request to asked and to answered. */
  seen: string[];
}

interface Trip {
  object: string;
  round: number;
  ttfbMs: number;
  shield: Hop;
  origin: Hop;
}

const stops = new Stops();
await main();
stops.releaseSignals();

async function main(): Promise<void> {
  const startedAt = new Date();
  try {
    const objects = [
      { path: '/small.bin', size: 100_000, seed: 0x7121 },
      { path: '/large.bin', size: 64 * MIB, seed: 0x7122 },
    ];
    const originThread = await startOriginThread(objects);
    stops.push(() => originThread.origin.close());
    const originLink = await originThread.startShaper({
      target: originThread.origin.url,
      firstByteLatencyMs: ORIGIN_LINK_MS,
    });
    stops.push(() => originLink.close());
    const atOrigin = await startOriginLedger(originLink.url);
    stops.push(() => atOrigin.close());
    const config = { ORIGIN_KIND: 'http', ORIGIN_URL: atOrigin.url, SHIELD_TOKEN: randomUUID(), LOG_SAMPLE: '0' };
    const stack = await startWorkers({ config, port: 0 });
    stops.push(() => stack.dispose());
    const atShield = await startOriginLedger(stack.shieldUrl);
    stops.push(() => atShield.close());
    const edge = await bundleWorker('worker/index.ts');
    const location = await startLocation({ edge, config, shieldUrl: atShield.url, reach: 'binding' });
    stops.push(() => location.dispose());
    const trips: Trip[] = [];
    for (let round = 1; round <= ROUNDS; round++)
      for (const object of objects) {
        const trip = await firstByte(location.url, object.path, round, { atShield, atOrigin });
        trips.push(trip);
        console.log(
          `${object.path} round ${round}: first byte ${trip.ttfbMs.toFixed(0)} ms; edge→shield ${trip.shield.requests} asked, ${trip.shield.sequential} in a row [${trip.shield.seen.join('; ')}]; shield→origin ${trip.origin.requests} asked, ${trip.origin.sequential} in a row [${trip.origin.seen.join('; ')}]`,
        );
        // What the first byte started (read-ahead) is let finish before the next.
        await new Promise((resolve) => setTimeout(resolve, 1500));
      }
    await report(startedAt, trips);
  } catch (error) {
    console.error(`bench:miss-round-trips failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    await stops.all();
  }
}

/** One cold GET, cut at its first byte: the wait, and what each hop was asked by then. */
async function firstByte(
  base: string,
  path: string,
  round: number,
  ledgers: { atShield: OriginLedger; atOrigin: OriginLedger },
): Promise<Trip> {
  const token = randomUUID().slice(0, 8);
  const url = `${base}${path}?cold=${token}`;
  const startedAt = Date.now();
  const started = performance.now();
  const ttfbMs = await new Promise<number>((resolve, reject) => {
    const pending = request(url, { agent: false }, (response) => {
      response.once('data', () => {
        resolve(performance.now() - started);
        response.destroy();
      });
      response.once('error', reject);
    });
    pending.setTimeout(GET_TIMEOUT_MS, () => pending.destroy(new Error(`GET ${url}: no first byte`)));
    pending.once('error', reject);
    pending.end();
  });
  const firstByteAt = startedAt + ttfbMs;
  const hop = (ledger: OriginLedger): Hop => {
    const before = ledger
      .responses()
      .filter((r) => r.query.includes(token) || r.path.includes(token))
      .filter((r) => (r.askedAt ?? r.startedAt) >= startedAt && (r.askedAt ?? r.startedAt) <= firstByteAt);
    return {
      requests: before.length,
      sequential: longestChain(before),
      seen: before.map(
        (r) =>
          `${r.method} ${shortTarget(r)} ${r.status} asked +${((r.askedAt ?? r.startedAt) - startedAt).toFixed(0)} answered +${(r.startedAt - startedAt).toFixed(0)}`,
      ),
    };
  };
  return { object: path, round, ttfbMs, shield: hop(ledgers.atShield), origin: hop(ledgers.atOrigin) };
}

/** The longest run of requests each asked after the one before it was answered. */
function longestChain(responses: readonly OriginResponse[]): number {
  const sorted = [...responses].sort((a, b) => a.startedAt - b.startedAt);
  const depth: number[] = [];
  for (const [i, r] of sorted.entries()) {
    const asked = r.askedAt ?? r.startedAt;
    let best = 0;
    for (let j = 0; j < i; j++)
      if ((sorted[j] as OriginResponse).startedAt <= asked) best = Math.max(best, depth[j] ?? 0);
    depth.push(best + 1);
  }
  return Math.max(0, ...depth);
}

function shortTarget(r: OriginResponse): string {
  const slice = /[?&](slice|span|warm)[^&]*/.exec(r.query)?.[0] ?? '';
  return `${r.path.split('/').pop() ?? ''}${slice}${r.range === undefined ? '' : ` range ${r.range}`}`;
}

async function report(startedAt: Date, trips: Trip[]): Promise<void> {
  const table = {
    columns: ['cold GET', 'round', 'first byte ms', 'edge→shield asked', 'in a row', 'shield→origin asked', 'in a row'],
    rows: trips.map((t) => [
      t.object,
      String(t.round),
      t.ttfbMs.toFixed(0),
      String(t.shield.requests),
      String(t.shield.sequential),
      String(t.origin.requests),
      String(t.origin.sequential),
    ]),
  };
  const markdown = [
    `# Round trips before a cold GET's first byte, ${startedAt.toISOString()}`,
    '',
    describeMachine(machine()),
    '',
    `An edge in a workerd of its own (local/location.ts, its SHIELD binding to an external address) → a counting proxy → the shield (local/workers.ts) → a counting proxy → a link holding each answer's first byte ${ORIGIN_LINK_MS} ms (25 MB/s) → the bench's site origin (ORIGIN_KIND=http). Each GET a fresh key, cold at both tiers; default settings (8 MiB slices: the small object is cached whole, the large one sliced). "Asked": requests the hop had been asked when the first byte came; "in a row": the longest chain of them each asked after the one before was answered (the round trips the first byte waited for, one after another).`,
    '',
    formatTable(table),
    '',
    ...trips.map(
      (t) =>
        `- ${t.object} round ${t.round}: edge→shield [${t.shield.seen.join('; ')}]; shield→origin [${t.origin.seen.join('; ')}]`,
    ),
    '',
  ].join('\n');
  console.log(`\n${markdown}`);
  const paths = await writeResults(
    'miss-round-trips',
    startedAt,
    { benchmark: 'miss-round-trips', originLinkMs: ORIGIN_LINK_MS, trips },
    markdown,
  );
  console.log(`results: ${paths.join(', ')}`);
}
