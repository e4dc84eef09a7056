// npm run sim (docs/sim.md): the topology runner. One trace (generated, read from a file, or converted from an
// access log), played against each system of the registry in turn on the same shaped links; the tables printed and
// written to bench/results/<stamp>/sim.{json,md} with a chart and the trace, and last the one summary line a script
// reads.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { barChart } from './report/charts.ts';
import { describeMachine, machine, timestampName, writeResults } from './report/results.ts';
import { useRamTmpdir } from './sim/ram-tmpdir.ts';
import { simReport } from './sim/report/sim-report.ts';
import { simMarkdown, summaryLine } from './sim/report/sim-tables.ts';
import { runSim } from './sim/run-sim.ts';
import { FlagError, parseSimFlags, type SimFlags } from './sim/sim-flags.ts';
import { SYSTEMS } from './sim/systems.ts';
import { defaultTopology, SLOW_ENDPOINT, SMALL_CACHES } from './sim/topology.ts';
import { DEFAULT_WORKLOAD, generateTrace } from './sim/workload/generate.ts';
import { convertLog } from './sim/workload/log-convert.ts';
import { HLS_VIEWERS_MIX } from './sim/workload/sessions.ts';
import { formatTrace, parseTrace, type Trace, traceLocations } from './sim/workload/trace.ts';

const DEFAULT_LOCATIONS = 6;

let flags: SimFlags;
try {
  flags = parseSimFlags(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof FlagError)) throw error;
  console.error(`sim: ${error.message}`);
  process.exit(2);
}

const trace = await loadTrace(flags);
const locations = flags.locations ?? Math.max(traceLocations(trace), flags.trace ? 1 : DEFAULT_LOCATIONS);
if (traceLocations(trace) > locations)
  throw new Error(`the trace asks at ${traceLocations(trace)} locations; --locations ${locations} has fewer`);
if (flags.writeTrace !== undefined) {
  await writeFile(flags.writeTrace, formatTrace(trace));
  console.log(`sim: wrote ${trace.requests.length} requests to ${flags.writeTrace}`);
  if (flags.traceOnly) process.exit(0);
}

// Before any system starts: its caches' files go where TMPDIR says (ram-tmpdir.ts says why RAM).
const ramTmpdir = useRamTmpdir();
if (ramTmpdir !== undefined) console.log(`sim: caches and temporary files in ${ramTmpdir} (RAM)`);
const at = new Date();
const topology = defaultTopology({
  locations,
  isolatesPerLocation: flags.isolates,
  kvPropagationMs: flags.kvDelayMs,
  ...(flags.slowEndpoint ? { endpoints: SLOW_ENDPOINT } : {}),
  ...(flags.r2Tier ? { smallCaches: SMALL_CACHES } : {}),
});
const systems = flags.systems.map((name) => {
  const start = SYSTEMS[name];
  return {
    name,
    start: start ?? (() => Promise.reject(new Error(`${name} is not in the registry (bench/sim/systems.ts)`))),
  };
});
console.log(
  `sim: ${locations} locations, ${trace.requests.length} requests over ${(trace.requests.at(-1)?.atMs ?? 0) / 1000} s at ${flags.speed}×; systems ${flags.systems.join(', ')}`,
);
const run = await runSim({ systems, topology, trace, speed: flags.speed, log: (line) => console.log(line) });
const report = simReport(run);
const markdown = simMarkdown(report, topology);
const written = await writeResults(
  'sim',
  at,
  { flags, machine: machine(), topology, report },
  `${markdown}\n\nMachine: ${describeMachine(machine())}\n`,
);
const chart = barChart({
  title: 'Origin bytes ÷ unique bytes requested (1.00 is ideal)',
  unit: '×',
  groups: report.systems
    .filter((system) => system.originPerUnique !== undefined)
    .map((system) => ({ label: system.name, bars: [{ series: 'origin/unique', value: system.originPerUnique ?? 0 }] })),
});
await writeFile(join(written[0] ?? '', '..', 'sim-origin.svg'), chart);
// The trace beside its result, so the run can be replayed as it was (--trace).
await writeFile(join(written[0] ?? '', '..', 'sim-trace.txt'), formatTrace(trace));
console.log(`\n${markdown.split('\n').slice(0, -1).join('\n')}`);
console.log(`written: ${written.join(', ')} (${timestampName(at)})`);
const wrong = report.systems.reduce((sum, system) => sum + system.wrongBytes, 0);
if (wrong > 0) console.log(`sim: ${wrong} responses carried a wrong byte (see Problems)`);
console.log(summaryLine(report));
process.exit(wrong > 0 ? 1 : 0);

async function loadTrace(options: SimFlags): Promise<Trace> {
  if (options.trace !== undefined) return parseTrace(await readFile(options.trace, 'utf8'));
  if (options.fromLog !== undefined) {
    const converted = convertLog(await readFile(options.fromLog, 'utf8'), options.locations ?? DEFAULT_LOCATIONS);
    console.log(`sim: ${options.fromLog}: ${converted.converted} requests read, ${converted.skipped} lines left out`);
    return converted.trace;
  }
  return generateTrace({
    ...DEFAULT_WORKLOAD,
    locations: options.locations ?? DEFAULT_LOCATIONS,
    minutes: options.minutes,
    alpha: options.alpha,
    seed: options.seed,
    scale: options.scale,
    sessionsPerMinute: options.sessions,
    ...(options.crowd ? {} : { crowdBytes: 0 }),
    ...(options.hls ? { mix: HLS_VIEWERS_MIX } : {}),
  });
}
