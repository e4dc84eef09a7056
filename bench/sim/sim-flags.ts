// `npm run sim` flags (docs/sim.md), read once into typed values. Defaults are sized so that the run, 6
// locations, a 3-minute trace, four systems one after another, ends within 10 minutes on a 2-core machine: the trace
// played 4× faster than it was written (links keep their real latencies), videos at 5 % of their size.

import type { SystemName } from './system.ts';
import { DEFAULT_WORKLOAD } from './workload/generate.ts';

export const SYSTEM_ORDER: readonly SystemName[] = ['tiercache', 'no-shield', 'varnish', 'nginx-slice'];
/** Every system --systems may name: the default run's, and tiercache with its hedge or its prefetching off, without its R2 tier or keeping all. */
const KNOWN_SYSTEMS: readonly SystemName[] = [
  ...SYSTEM_ORDER,
  'tiercache-no-hedge',
  'tiercache-no-prefetch',
  'tiercache-no-r2',
  'tiercache-r2-all',
];
/** --slow-endpoint's systems, unless --systems says otherwise: the same tiercache with hedging off, then on. */
const SLOW_ENDPOINT_SYSTEMS: readonly SystemName[] = ['tiercache-no-hedge', 'tiercache'];
/** --hls's systems, unless --systems says otherwise: the same tiercache with segment prefetching off, then on. */
const HLS_SYSTEMS: readonly SystemName[] = ['tiercache-no-prefetch', 'tiercache'];
/**
 * --r2-tier's systems, unless --systems says otherwise: tiercache on small caches without its R2 tier, with it (its
 * admission by cost), and with it keeping every entry (R2_TIER_ADMIT=all, as Cache Reserve and Perma-Cache do).
 */
const R2_TIER_SYSTEMS: readonly SystemName[] = ['tiercache-no-r2', 'tiercache', 'tiercache-r2-all'];

export interface SimFlags {
  locations: number | undefined;
  minutes: number;
  alpha: number;
  seed: number;
  scale: number;
  /** Sessions per location per minute. */
  sessions: number;
  speed: number;
  systems: SystemName[];
  kvDelayMs: number;
  isolates: number;
  trace?: string;
  fromLog?: string;
  writeTrace?: string;
  /** Write the trace (--write-trace) and run nothing. */
  traceOnly: boolean;
  /** The origin at three endpoints, the preferred one slow on a fifth of its answers (topology.ts SLOW_ENDPOINT). */
  slowEndpoint: boolean;
  /** The generated trace has its cold crowd (`--no-crowd`, `--slow-endpoint`, `--hls` and `--r2-tier` leave it out). */
  crowd: boolean;
  /** The generated trace is mostly HLS viewers (sessions.ts HLS_VIEWERS_MIX), for segment prefetching. */
  hls: boolean;
  /** Every Cache API small (topology.ts SMALL_CACHES), tiercache without its R2 tier and with it. */
  r2Tier: boolean;
}

const NUMBER_FLAGS = {
  '--locations': 'locations',
  '--minutes': 'minutes',
  '--alpha': 'alpha',
  '--seed': 'seed',
  '--scale': 'scale',
  '--sessions': 'sessions',
  '--speed': 'speed',
  '--kv-delay-ms': 'kvDelayMs',
  '--isolates': 'isolates',
} as const;
const SWITCHES = {
  '--trace-only': (flags: SimFlags) => {
    flags.traceOnly = true;
  },
  // The slow endpoint's run is about first bytes. The cold crowd pushes 384 MB through the runner's two cores within
  // 100 ms and slows every response for seconds after, both systems alike: it is then the misses' p99, and the slow
  // endpoint's tail, what hedging is for, is lost under it. The default run keeps the crowd and judges it.
  '--slow-endpoint': (flags: SimFlags) => {
    flags.slowEndpoint = true;
    flags.crowd = false;
  },
  '--no-crowd': (flags: SimFlags) => {
    flags.crowd = false;
  },
  // Segment prefetching is about the first bytes of segments at a cold shield: the crowd's wake would hide them as it
  // hides the slow endpoint's tail.
  '--hls': (flags: SimFlags) => {
    flags.hls = true;
    flags.crowd = false;
  },
  // The R2 tier's run is about what the small caches forget and are asked for again: the crowd's one 64 MiB object at
  // once is no long tail, and would flush the small caches for both systems alike.
  '--r2-tier': (flags: SimFlags) => {
    flags.r2Tier = true;
    flags.crowd = false;
  },
} as const;
const PATH_FLAGS = { '--trace': 'trace', '--from-log': 'fromLog', '--write-trace': 'writeTrace' } as const;

export class FlagError extends Error {}

export function parseSimFlags(args: readonly string[]): SimFlags {
  const flags: SimFlags = {
    locations: undefined,
    minutes: DEFAULT_WORKLOAD.minutes,
    alpha: DEFAULT_WORKLOAD.alpha,
    seed: DEFAULT_WORKLOAD.seed,
    scale: DEFAULT_WORKLOAD.scale,
    sessions: DEFAULT_WORKLOAD.sessionsPerMinute,
    speed: 4,
    systems: [...SYSTEM_ORDER],
    kvDelayMs: 60_000,
    isolates: 1,
    traceOnly: false,
    slowEndpoint: false,
    crowd: true,
    hls: false,
    r2Tier: false,
  };
  let systemsGiven = false;
  for (let i = 0; i < args.length; i++) {
    const [name = '', inline] = (args[i] ?? '').split(/=(.*)/s, 2);
    if (name in SWITCHES) {
      SWITCHES[name as keyof typeof SWITCHES](flags);
      continue;
    }
    if (!(name in NUMBER_FLAGS || name in PATH_FLAGS || name === '--systems'))
      throw new FlagError(`unknown flag ${name} (docs/sim.md lists them)`);
    const value = inline ?? args[++i];
    if (value === undefined) throw new FlagError(`${name} needs a value`);
    if (name in NUMBER_FLAGS) {
      const number = Number(value);
      // A KV delay of 0 is a KV that propagates at once (a test's); every other number must be above 0.
      const least = name === '--kv-delay-ms' ? 0 : Number.MIN_VALUE;
      if (!Number.isFinite(number) || number < least)
        throw new FlagError(`${name} expects a number above 0, got ${value}`);
      flags[NUMBER_FLAGS[name as keyof typeof NUMBER_FLAGS]] = number;
    } else if (name in PATH_FLAGS) {
      flags[PATH_FLAGS[name as keyof typeof PATH_FLAGS]] = value;
    } else {
      flags.systems = systemList(value);
      systemsGiven = true;
    }
  }
  if (flags.slowEndpoint && !systemsGiven) flags.systems = [...SLOW_ENDPOINT_SYSTEMS];
  if (flags.hls && !systemsGiven) flags.systems = [...HLS_SYSTEMS];
  if (flags.r2Tier && !systemsGiven) flags.systems = [...R2_TIER_SYSTEMS];
  check(flags);
  return flags;
}

function systemList(value: string): SystemName[] {
  const names = value.split(',').map((name) => name.trim());
  for (const name of names)
    if (!KNOWN_SYSTEMS.includes(name as SystemName))
      throw new FlagError(`--systems takes ${KNOWN_SYSTEMS.join(', ')}; got ${name}`);
  return names as SystemName[];
}

function check(flags: SimFlags): void {
  if (flags.locations !== undefined && !Number.isInteger(flags.locations))
    throw new FlagError(`--locations expects a whole number, got ${flags.locations}`);
  if (!Number.isInteger(flags.isolates))
    throw new FlagError(`--isolates expects a whole number, got ${flags.isolates}`);
  if (flags.alpha > 2) throw new FlagError(`--alpha expects 0.6–1.0 (at most 2), got ${flags.alpha}`);
  if (flags.scale > 1) throw new FlagError(`--scale expects a fraction up to 1, got ${flags.scale}`);
  if (flags.trace !== undefined && flags.fromLog !== undefined)
    throw new FlagError('--trace and --from-log are two sources of one trace: give one');
  if (flags.traceOnly && flags.writeTrace === undefined) throw new FlagError('--trace-only needs --write-trace FILE');
}
