// `npm run bench:cold-download` (`-- --latency 40 --rounds 2 --sizes 100,1024`): a cold single download through `npm
// start` as a user runs it, behind the shaped origin (25 MB/s per connection), against the same stack's unshaped
// ceiling (the same link with no latency and no cap) in the same run, at the stack's edge and at its second location
// (an edge in a workerd process of its own). `--topology` (`--links map|open`): the same on the sim's topology
// (sim/cold-topology.ts), two locations each in a workerd of its own at a distance from one shield process, the origin
// link the map's (30 ms, 25 MB/s a connection). Writes bench/results/<ts>/cold-download.{json,md}.

import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { freemem } from 'node:os';
import { parseArgs } from 'node:util';
import { totalCpuSeconds } from './probes/process-cpu.ts';
import { procAvailable, processesNamed, RUNTIME_NAME } from './probes/process-rss.ts';
import { untilQuiet } from './probes/quiet.ts';
import { describeError, describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { median } from './report/statistics.ts';
import { freePort } from './setup/free-port.ts';
import { startNpmStart } from './setup/npm-start.ts';
import { startOriginThread } from './setup/origin-thread.ts';
import type { LinkShape } from './setup/shaper.ts';
import { Stops } from './setup/signals.ts';
import type { ColdLinks } from './sim/cold-links.ts';
import { type ColdStack, startColdTopology } from './sim/cold-topology.ts';

const MIB = 2 ** 20;
/** The target: each shaped download at least this share of the same stack's unshaped one. */
const TARGET_RATIO = 0.9;
const GET_TIMEOUT_MS = 300_000;
/** The origin link's rate per connection, as `npm run bench`'s default profile. */
const ORIGIN_BYTES_PER_SEC = 25e6;
/** Unshaped: no latency, and a rate no connection here reaches. */
const UNSHAPED: LinkShape = { firstByteLatencyMs: 0, bandwidthBytesPerSec: 1e12 };
/** The client's bytes are sampled this often for the ramp-up (what arrived in each such step). */
const STEP_MS = 250;

type Link = 'unshaped' | 'shaped';

interface Download {
  sizeMib: number;
  location: string;
  link: Link;
  round: number;
  mibPerSec: number;
  ttfbMs: number;
  /** 200, every byte's count, and (where the stack checks bytes) every chunk's sampled bytes right. */
  complete: boolean;
  /** MiB/s in each STEP_MS from the request on: where the ramp-up went. */
  steps: number[];
  cacheStatus: string;
  /**
   * This process's CPU over the download's wall time (1 = a core): near 1 with --topology, whose links, origin and
   * client share this one event loop, the harness is what caps the download, not the stack.
   */
  benchCpuShare: number;
}

const { values } = parseArgs({
  options: {
    latency: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '2' },
    sizes: { type: 'string', default: '100,1024' },
    locations: { type: 'string' },
    topology: { type: 'boolean', default: false },
    links: { type: 'string', default: 'map' },
  },
});
const latencyMs = Number(values.latency);
const rounds = Number(values.rounds);
const sizes = values.sizes.split(',').map(Number);
if (values.links !== 'map' && values.links !== 'open') throw new Error(`--links map|open, got ${values.links}`);
const links: ColdLinks = values.links;
refuseWhatMemoryCannotHold();
const stops = new Stops();
await main();
stops.releaseSignals();

/**
 * Every download is a fresh key stored whole at its edge and at the shield, in memory unless TIERCACHE_STORE_DIR names
 * a disk (local/store-root.ts): three rounds of 1 GiB at two locations, shaped and not, are 24 GiB, past this
 * machine's memory, and the store then stalls the download it fills (measured: 0 MiB/s for minutes). Refused up front.
 */
function refuseWhatMemoryCannotHold(): void {
  if (process.env.TIERCACHE_STORE_DIR) return;
  const LOCATIONS = 2;
  const stored = sizes.reduce((sum, mib) => sum + mib * MIB, 0) * rounds * LOCATIONS * 2 * 2;
  if (stored <= 0.7 * freemem()) return;
  const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);
  console.error(
    `bench:cold-download would store ${gib(stored)} GiB in memory (${gib(freemem())} GiB free): fewer --rounds or --sizes, or TIERCACHE_STORE_DIR=/var/tmp to store on disk`,
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const startedAt = new Date();
  try {
    const objects = sizes.map((mib, i) => ({ path: `/cold-${mib}m.bin`, size: mib * MIB, seed: 0xc01d + i }));
    const stack = values.topology ? await startColdTopology(objects, links) : await startNpmStartStack(objects);
    stops.push(stack.stop);
    const locationNames = values.locations?.split(',') ?? [...stack.bases.keys()];
    console.log(stack.setup);
    const downloads: Download[] = [];
    for (const object of objects)
      for (let round = 1; round <= rounds; round++)
        for (const location of locationNames) {
          const base = stack.bases.get(location);
          if (base === undefined) throw new Error(`no location ${location} (${[...stack.bases.keys()].join(', ')})`);
          // Alternating, unshaped first in odd rounds and shaped first in even ones: drift in the machine's load
          // (other processes share it) falls on both alike.
          const order: Link[] = round % 2 === 1 ? ['unshaped', 'shaped'] : ['shaped', 'unshaped'];
          for (const phase of order) {
            await stack.link.reshape?.(phase === 'shaped' ? stack.shaped : stack.unshaped);
            await untilQuiet(stack.signals);
            const url = `${base}${object.path}?cold=${randomUUID().slice(0, 8)}`;
            const check = stack.check?.bind(stack, object.path);
            const cpuBefore = process.cpuUsage();
            const answer = await sampledGet(url, check);
            const cpu = process.cpuUsage(cpuBefore);
            const download: Download = {
              sizeMib: object.size / MIB,
              location,
              link: phase,
              round,
              mibPerSec: answer.bytes / MIB / (answer.totalMs / 1000),
              ttfbMs: answer.ttfbMs,
              complete: answer.status === 200 && answer.bytes === object.size && answer.intact,
              steps: answer.steps,
              cacheStatus: answer.cacheStatus,
              benchCpuShare: (cpu.user + cpu.system) / 1000 / answer.totalMs,
            };
            downloads.push(download);
            console.log(
              `${download.sizeMib} MiB at ${location}, ${phase}, round ${round}: ${download.mibPerSec.toFixed(1)} MiB/s, first byte ${download.ttfbMs.toFixed(0)} ms, bench CPU ${download.benchCpuShare.toFixed(2)}${download.complete ? '' : ' INCOMPLETE'}; MiB/s per ${STEP_MS} ms: ${download.steps.map((s) => s.toFixed(0)).join(' ')}`,
            );
          }
        }
    await stack.link.reshape?.(stack.shaped);
    await report(startedAt, stack, locationNames, downloads);
  } catch (error) {
    console.error(`bench:cold-download failed: ${describeError(error)}`);
    process.exitCode = 1;
  } finally {
    await stops.all();
  }
}

/** `npm start` in front of the bench's site origin on a thread of its own, behind one link (the default setup). */
async function startNpmStartStack(objects: { path: string; size: number; seed: number }[]): Promise<ColdStack> {
  const shaped: LinkShape = { firstByteLatencyMs: latencyMs, bandwidthBytesPerSec: ORIGIN_BYTES_PER_SEC };
  const parts: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const part of parts.splice(0).reverse()) await part().catch(() => undefined);
  };
  try {
    console.log(`writing ${sizes.map((s) => `${s} MiB`).join(', ')} for the origin …`);
    const originThread = await startOriginThread(objects);
    parts.push(() => originThread.origin.close());
    const link = await originThread.startShaper({ target: originThread.origin.url, ...shaped });
    parts.push(() => link.close());
    const stack = await startNpmStart({ ORIGIN_KIND: 'http', ORIGIN_URL: link.url, PORT: String(await freePort()) });
    parts.push(() => stack.stop());
    const pids = procAvailable() ? processesNamed(stack.pid, RUNTIME_NAME) : [];
    const bases = new Map([['edge', stack.url]]);
    if (stack.secondLocation !== undefined) bases.set('edge 2', stack.secondLocation);
    return {
      bases,
      link,
      shaped,
      unshaped: UNSHAPED,
      signals: {
        originBytes: () => link.stats().bytesToClient,
        originOpen: () => 0,
        runtimeCpu: () => totalCpuSeconds(pids),
      },
      setup: `\`npm start\` at ${stack.url} (ORIGIN_KIND=http, default settings; ${pids.length} workerd) in front of the bench's site origin on a thread of its own, through one link whose shape is switched between downloads. \`edge\` is the edge in the shield's workerd, \`edge 2\` the second location, an edge in a workerd of its own reaching the shield across processes. Lengths checked, not bytes.`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface SampledAnswer {
  status: number;
  bytes: number;
  ttfbMs: number;
  totalMs: number;
  steps: number[];
  cacheStatus: string;
  /** Every chunk passed `check` (true where none was given). */
  intact: boolean;
}

/**
 * One GET on a fresh connection, its body counted, each chunk given to `check` at its offset and dropped, the bytes of
 * each STEP_MS kept.
 */
function sampledGet(url: string, check?: (offset: number, chunk: Uint8Array) => boolean): Promise<SampledAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfbMs = Number.NaN;
    const steps: number[] = [];
    const pending = request(url, { agent: false }, (response) => {
      let bytes = 0;
      let intact = true;
      response.on('data', (chunk: Buffer) => {
        const now = performance.now();
        if (bytes === 0) ttfbMs = now - started;
        if (intact && check !== undefined && !check(bytes, chunk)) intact = false;
        bytes += chunk.length;
        const step = Math.floor((now - started) / STEP_MS);
        while (steps.length <= step) steps.push(0);
        steps[step] = (steps[step] ?? 0) + chunk.length;
      });
      response.on('end', () => {
        clearTimeout(timer);
        const cacheStatus = String(response.headers['cache-status'] ?? '');
        resolve({
          status: response.statusCode ?? 0,
          bytes,
          ttfbMs,
          totalMs: performance.now() - started,
          steps: steps.map((b) => b / MIB / (STEP_MS / 1000)),
          cacheStatus,
          intact,
        });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(
      () => pending.destroy(new Error(`GET ${url} took over ${GET_TIMEOUT_MS / 1000} s`)),
      GET_TIMEOUT_MS,
    );
    pending.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    pending.end();
  });
}

async function report(
  startedAt: Date,
  stack: ColdStack,
  locationNames: readonly string[],
  downloads: Download[],
): Promise<void> {
  const rows: string[][] = [];
  const verdicts: { sizeMib: number; location: string; ratio: number; pass: boolean }[] = [];
  for (const sizeMib of sizes)
    for (const location of locationNames) {
      const of = (link: Link) =>
        downloads.filter((d) => d.sizeMib === sizeMib && d.location === location && d.link === link);
      const unshaped = median(of('unshaped').map((d) => d.mibPerSec));
      const shaped = median(of('shaped').map((d) => d.mibPerSec));
      const ratio = shaped / unshaped;
      const complete = [...of('unshaped'), ...of('shaped')].every((d) => d.complete);
      const pass = complete && ratio >= TARGET_RATIO;
      verdicts.push({ sizeMib, location, ratio, pass });
      rows.push([
        `${sizeMib} MiB`,
        location,
        of('unshaped')
          .map((d) => d.mibPerSec.toFixed(1))
          .join(', '),
        of('shaped')
          .map((d) => d.mibPerSec.toFixed(1))
          .join(', '),
        median(of('unshaped').map((d) => d.ttfbMs)).toFixed(0),
        median(of('shaped').map((d) => d.ttfbMs)).toFixed(0),
        `${ratio.toFixed(2)}×`,
        median([...of('unshaped'), ...of('shaped')].map((d) => d.benchCpuShare)).toFixed(2),
        pass ? 'PASS' : complete ? 'SHORT' : 'INCOMPLETE',
      ]);
    }
  const table = {
    columns: [
      'object',
      'at',
      'unshaped MiB/s',
      'shaped MiB/s',
      'unshaped first byte ms',
      'shaped first byte ms',
      'median ratio',
      'bench CPU',
      `≥ ${TARGET_RATIO}×`,
    ],
    rows,
  };
  const shape = (link: LinkShape) =>
    `${link.firstByteLatencyMs} ms first byte, ${((link.bandwidthBytesPerSec ?? 0) / 1e6).toFixed(0)} MB/s per connection`;
  const markdown = [
    `# Cold single downloads ${values.topology ? `on the sim's topology (${links} links)` : 'through npm start'}, ${startedAt.toISOString()}`,
    '',
    describeMachine(machine()),
    '',
    stack.setup,
    '',
    `Origin link shaped: ${shape(stack.shaped)}; unshaped: no latency, no cap (the stack's own ceiling). Each download a fresh key (cold at both tiers), the stack quiet before it, unshaped first in odd rounds.`,
    '',
    formatTable(table),
    '',
    `Ramp-up (MiB/s per ${STEP_MS} ms from the request):`,
    '',
    ...downloads.map(
      (d) =>
        `- ${d.sizeMib} MiB, ${d.location}, ${d.link}, round ${d.round} (bench CPU ${d.benchCpuShare.toFixed(2)}): ${d.steps.map((s) => s.toFixed(0)).join(' ')}`,
    ),
    '',
  ].join('\n');
  console.log(`\n${markdown}`);
  const paths = await writeResults(
    'cold-download',
    startedAt,
    {
      benchmark: 'cold-download',
      setup: values.topology ? `topology, ${links} links` : 'npm start',
      shaped: stack.shaped,
      unshaped: stack.unshaped,
      downloads,
      verdicts,
    },
    markdown,
  );
  console.log(`results: ${paths.join(', ')}`);
  if (!downloads.every((d) => d.complete)) process.exitCode = 1;
}
