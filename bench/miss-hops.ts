// npm run bench:miss-hops: where a cold miss's first byte goes, hop by hop, on one location of the sim's map
// (bench/sim/topology.ts: client 5 ms, shield 20 ms, origin 10 + 20 ms). A tap (probes/first-byte-tap.ts) in front of
// each tier notes when a request and its answer's first byte pass it, so each tier's own time shows beside the
// links'; and the same topology runs the least a tier can do (setup/naive-tier-worker.ts) on the same runtime, so what
// is tiercache's shows apart from what is workerd's and the local Cache API simulator's. Then the same misses in bursts
// (a page's assets asked at once): each tier is one thread, and its CPU per miss (from /proc) is what a burst waits on.

import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { bundleWorker, type WorkerBundle } from '../local/bundle.ts';
import { startLocation } from '../local/location.ts';
import type { RawConfig } from '../shared/config/config.ts';
import { startTap, type TapExchange } from './probes/first-byte-tap.ts';
import { cpuSeconds } from './probes/process-cpu.ts';
import { processesNamed } from './probes/process-rss.ts';
import { describeMachine, formatTable, machine, writeResults } from './report/results.ts';
import { startCatalogueOrigin } from './sim/catalogue-origin.ts';
import { KvModel } from './sim/kv-model.ts';
import { kvBinding, kvService, kvWrapperWorker } from './sim/kv-server.ts';
import { originLink, startLink } from './sim/links.ts';
import { useRamTmpdir } from './sim/ram-tmpdir.ts';
import { startShieldProcess } from './sim/shield-process.ts';
import { statsBinding, statsRelay, statsWrapperWorker } from './sim/stats-relay.ts';
import { defaultTopology, firstByteFloorMs } from './sim/topology.ts';

/** Object sizes one at a time, bytes: MISS_HOPS_SIZES=5000000,30000000 asks sliced objects (SLICE_SIZE 8 MiB). */
const SIZES = (process.env.MISS_HOPS_SIZES ?? '20000,100000,1000000').split(',').map(Number);
/** Misses of each size, one at a time (one more first, left out: it warms the code); MISS_HOPS_COUNT. */
const SEQUENTIAL = Number(process.env.MISS_HOPS_COUNT ?? 9);
const BURST = 8;
const BURSTS = 6;
const PAUSE_MS = 100;
const KINDS = ['tiercache', 'naive'] as const;
type Kind = (typeof KINDS)[number];

/** One miss, one at a time: its first byte and each hop's share of it, ms. */
interface Hops {
  ttfb: number;
  edgeIn: number;
  shieldIn: number;
  origin: number;
  shieldOut: number;
  edgeOut: number;
  client: number;
}

const at = new Date();
const ramTmpdir = useRamTmpdir();
const topology = defaultTopology({ locations: 1, kvPropagationMs: 5000 });
const spec = topology.locations[0];
if (spec === undefined) throw new Error('the map has no location');
const floor = firstByteFloorMs(topology, 0, 'miss');
const objects = KINDS.flatMap((kind) => [
  ...SIZES.flatMap((size) =>
    Array.from({ length: SEQUENTIAL + 1 }, (_, i) => ({ path: `/${kind}/s/${size}-${i}`, size })),
  ),
  ...Array.from({ length: BURST * BURSTS }, (_, i) => ({ path: `/${kind}/b/${i}`, size: 20_000 + 1000 * i })),
]);
const origin = await startCatalogueOrigin(objects);
const results = [];
for (const kind of KINDS) results.push(await measure(kind));
await origin.close();

const hopTable = formatTable({
  columns: [
    'tiers',
    'miss p50 ms',
    '÷ floor',
    'edge in',
    'shield in',
    'origin',
    'shield out',
    'edge out',
    'client link',
  ],
  rows: results.map(({ kind, hops }) => {
    const p = (key: keyof Hops) => median(hops.map((hop) => hop[key])).toFixed(1);
    return [
      kind,
      p('ttfb'),
      (median(hops.map((hop) => hop.ttfb)) / floor).toFixed(2),
      p('edgeIn'),
      p('shieldIn'),
      p('origin'),
      p('shieldOut'),
      p('edgeOut'),
      p('client'),
    ];
  }),
});
const burstTable = formatTable({
  columns: [
    'tiers',
    `bursts of ${BURST}: p50 ms`,
    'p90 ms',
    '÷ floor (p50)',
    'edge CPU ms / miss',
    'shield CPU ms / miss',
  ],
  rows: results.map(({ kind, burst }) => [
    kind,
    burst.p50.toFixed(0),
    burst.p90.toFixed(0),
    (burst.p50 / floor).toFixed(2),
    burst.edgeCpuMs.toFixed(1),
    burst.shieldCpuMs.toFixed(1),
  ]),
});
const markdown = [
  '# A cold miss, hop by hop',
  '',
  `One location of the sim's map (client ${spec.client.latencyMs} ms, shield ${spec.shield.latencyMs} ms, origin ${topology.origin.latencyMs} + ${topology.originFirstByteMs} ms): the floor of a miss's first byte is ${floor} ms. Each tier its own workerd process${ramTmpdir === undefined ? '' : ', caches in RAM'}. \`naive\`: a tier that only looks up caches.default, asks the next hop and stores a copy (setup/naive-tier-worker.ts), on the same runtime.`,
  '',
  `## One at a time (${SEQUENTIAL} misses each of ${SIZES.join(', ')} bytes; medians)`,
  '',
  "Each tier's own time, in and out, is what its tap saw less the links' latencies: `edge in` from the request reaching the edge to it reaching the shield, `shield in` on to the origin, `shield out` from the origin's first byte (less the origin link) to the shield's, `edge out` likewise to the edge's, `client link` the rest (less the client link).",
  '',
  hopTable,
  '',
  `## In bursts (${BURSTS} bursts of ${BURST} cold misses at once, 20–67 KB)`,
  '',
  burstTable,
  '',
  `Machine: ${describeMachine(machine())}`,
].join('\n');
console.log(markdown);
const written = await writeResults('miss-hops', at, { floor, topology, results, machine: machine() }, markdown);
console.log(`written: ${written.join(', ')}`);
process.exit(0);

async function measure(kind: Kind) {
  const system = await startOneLocation(kind);
  try {
    const agent = new Agent({ keepAlive: true });
    const hops: Hops[] = [];
    for (const size of SIZES) {
      for (let i = 0; i <= SEQUENTIAL; i++) {
        const hop = await oneMiss(system, agent, `/${kind}/s/${size}-${i}`);
        if (i > 0 && hop !== undefined) hops.push(hop);
        await sleep(PAUSE_MS);
      }
    }
    const pids = processesNamed(process.pid, 'workerd');
    const before = pids.map((pid) => cpuSeconds(pid) ?? 0);
    const ttfbs: number[] = [];
    for (let b = 0; b < BURSTS; b++) {
      const paths = Array.from({ length: BURST }, (_, i) => `/${kind}/b/${b * BURST + i}`);
      const answers = await Promise.all(paths.map((path) => firstByte(system.url, agent, path)));
      ttfbs.push(...answers.map((answer) => answer.ttfb));
      await sleep(PAUSE_MS * 3);
    }
    const cpuMs = pids.map((pid, i) => (((cpuSeconds(pid) ?? 0) - (before[i] ?? 0)) * 1000) / ttfbs.length);
    agent.destroy();
    ttfbs.sort((a, b) => a - b);
    // The shield's process was started first (startOneLocation).
    const burst = {
      p50: ttfbs[Math.floor(ttfbs.length / 2)] ?? Number.NaN,
      p90: ttfbs[Math.floor(ttfbs.length * 0.9)] ?? Number.NaN,
      shieldCpuMs: cpuMs[0] ?? Number.NaN,
      edgeCpuMs: cpuMs[1] ?? Number.NaN,
    };
    return { kind, hops, burst };
  } finally {
    await system.stop();
  }
}

interface OneLocation {
  url: string;
  taps: { edge: TapExchange[]; shield: TapExchange[]; origin: TapExchange[] };
  stop(): Promise<void>;
}

/** tiercache's one location as bench/sim/tiercache-system.ts lays it, with a tap in front of each tier and the origin. */
async function startOneLocation(kind: Kind): Promise<OneLocation> {
  if (spec === undefined) throw new Error('the map has no location');
  const stops: (() => Promise<void>)[] = [];
  const [edge, shield]: [WorkerBundle, WorkerBundle] =
    kind === 'tiercache'
      ? await Promise.all([bundleWorker('worker/index.ts'), bundleWorker('shield/index.ts')])
      : await bundleWorker('bench/setup/naive-tier-worker.ts').then((naive) => [naive, naive]);
  const kv = new KvModel(topology.kvPropagationMs);
  const relay = statsRelay();
  const wrappers = [kvWrapperWorker(kvService(kv, Date.now)), statsWrapperWorker(relay)];
  const originTap = await startTap(origin.url);
  const originShaper = await startLink(originLink(topology), originTap.url);
  const config: RawConfig = {
    ORIGIN_KIND: 'http',
    ORIGIN_URL: originShaper.url,
    STATS_FLUSH_MS: '1000',
    LOG_SAMPLE: '0',
    SHIELD_TOKEN: randomUUID(),
    PURGE_TOKEN: randomUUID(),
    STATS_TOKEN: randomUUID(),
  };
  const shieldProcess = await startShieldProcess({
    shield,
    config,
    shared: {
      workers: wrappers,
      bindings: { ...kvBinding({ location: 'shield', isolate: 'shield' }), ...statsBinding() },
    },
  });
  relay.setGateway(shieldProcess.statsGatewayUrl);
  const shieldTap = await startTap(shieldProcess.url);
  const shieldShaper = await startLink(spec.shield, shieldTap.url);
  const location = await startLocation({
    edge,
    config,
    shieldUrl: shieldShaper.url,
    reach: 'binding',
    shared: {
      workers: wrappers,
      bindings: (copy) => ({ ...kvBinding({ location: spec.name, isolate: copy }), ...statsBinding() }),
    },
  });
  const edgeTap = await startTap(location.url);
  const clientShaper = await startLink(spec.client, edgeTap.url);
  stops.push(originTap.close, originShaper.close, shieldProcess.stop, shieldTap.close, shieldShaper.close);
  stops.push(location.dispose, edgeTap.close, clientShaper.close);
  return {
    url: clientShaper.url,
    taps: { edge: edgeTap.exchanges, shield: shieldTap.exchanges, origin: originTap.exchanges },
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}

/** One cold GET through the location, timed at every tap; undefined when a tap saw no single exchange for it. */
async function oneMiss(system: OneLocation, agent: Agent, path: string): Promise<Hops | undefined> {
  const marks = { edge: system.taps.edge.length, shield: system.taps.shield.length, origin: system.taps.origin.length };
  const { sent, first, ttfb } = await firstByte(system.url, agent, path);
  const edge = system.taps.edge.slice(marks.edge);
  const shield = system.taps.shield.slice(marks.shield);
  const originSeen = system.taps.origin.slice(marks.origin);
  const [e, s, o] = [edge[0], shield[0], originSeen[0]];
  if (edge.length !== 1 || shield.length !== 1 || originSeen.length !== 1 || !e || !s || !o) return undefined;
  if (e.responseAt === undefined || s.responseAt === undefined || o.responseAt === undefined || spec === undefined)
    return undefined;
  return {
    ttfb,
    edgeIn: s.requestAt - e.requestAt,
    shieldIn: o.requestAt - s.requestAt,
    origin: o.responseAt - o.requestAt,
    shieldOut: s.responseAt - o.responseAt - originLink(topology).latencyMs,
    edgeOut: e.responseAt - s.responseAt - spec.shield.latencyMs,
    client: first - e.responseAt - spec.client.latencyMs + (e.requestAt - sent),
  };
}

function firstByte(base: string, agent: Agent, path: string): Promise<{ sent: number; first: number; ttfb: number }> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const outgoing = httpRequest(`${base}${path}`, { agent }, (response) => {
      const first = performance.now();
      if (response.statusCode !== 200) reject(new Error(`${path}: status ${response.statusCode}`));
      response.resume();
      response.on('end', () => resolve({ sent, first, ttfb: first - sent }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
