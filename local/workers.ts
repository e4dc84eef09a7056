// Both tiers in one Miniflare: the edge on the public port with its SHIELD service binding, the shield
// behind it and also on a direct socket of its own (to prove it refuses callers that are not the edge).

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Miniflare, WorkerOptions } from 'miniflare';
import type { RawConfig } from '../shared/config/config.ts';
import { FRONT_HEADER } from '../shared/hop/hop-fields.ts';
import { bundleWorker, type WorkerBundle } from './bundle.ts';
import { directSocket, LOOPBACK, moduleWorker, startDirectMiniflare, unixSocket } from './direct-miniflare.ts';
import { type Front, startFront } from './front.ts';
import { type ShieldReach, startLocation } from './location.ts';
import { type ResolveMap, resolvingOutbound } from './outbound.ts';
import {
  COMPATIBILITY_FLAGS,
  clockBinding,
  definedStrings,
  edgeEntry,
  frontMethods,
  PURGES_NAMESPACE,
  refusingEntry,
  shieldEntry,
} from './tier-options.ts';

/** The second edge worker's name (WorkersOptions.secondEdge). */
const SECOND_EDGE = 'edge-2';
/** The stats store's class, exported by the shield's script (shield/stats-store.ts). */
const STATS_CLASS = 'StatsStore';
/** The R2 tier's bucket in Miniflare's R2 (WorkersOptions.r2Tier). */
export const R2_TIER_BUCKET = 'tiercache-r2';

export interface WorkersOptions {
  /** Bindings for both workers; absent values are not bound. */
  config: RawConfig;
  /** Edge port; 0 (the default) = any free port. */
  port?: number;
  /** Port of the shield's direct socket (its front's, with the front); 0 (the default) = any free port. */
  shieldPort?: number;
  /** Host name → `host:port` for the shield's fetches to names that do not resolve. */
  resolve?: ResolveMap;
  /**
   * Entry files relative to the project root, to run other workers in the same stack (tests). With `clock`, an entry
   * wraps the local one (local-edge.ts, local-shield.ts), which reads the test clock.
   */
  entries?: { edge?: string; shield?: string };
  /**
   * A movable clock (ms epoch) both workers judge freshness by, through the local entries (test-clock.ts); absent = the
   * real one.
   */
  clock?: () => number;
  /** Opens workerd's V8 inspector on this port (bench/hit-cost.ts); absent = closed. */
  inspectorPort?: number;
  /**
   * The local front on the edge's port and on the shield's (front.ts: what Cloudflare's front
   * end does before a Worker runs): malformed requests get a 4xx there, the tiers' workerd
   * sockets are Unix sockets only the fronts use, and the edge's refuses what did not come
   * through its front. `npm start` and the tests of hostile requests run with it; the
   * benchmarks measure the edge's TCP socket itself.
   */
  front?: boolean;
  /**
   * A second edge worker, an isolate of its own sharing the purge list and the shield with the first, as another
   * location's edge does (bench/purge-speed.ts); bare stacks only (no front).
   */
  secondEdge?: boolean;
  /**
   * A second location: the edge in a workerd process of its own (location.ts: its own cache, its own purge list),
   * reaching this stack's shield across processes; `true` by its SHIELD binding to the shield's port (the default
   * 'workers-cache' mode's way), `{ reach: 'url' }` by SHIELD_URL ('cache-api' mode's). With `front`, behind a front of
   * its own.
   */
  secondLocation?: boolean | { reach: ShieldReach };
  /**
   * How long the front waits for a request head before it answers 408 (tests: short); absent = FRONT_HEAD_TIMEOUT_MS.
   */
  frontHeadTimeoutMs?: number;
  /**
   * false: the edge's Cache API does nothing (Miniflare's `cache: false`: puts are dropped, every match misses), as on a
   * `*.workers.dev` hostname (docs/deploying.md): what `npm run verify` must fail on (tests); absent = a working cache.
   */
  edgeCache?: boolean;
  /**
   * The R2 tier behind the shield (shield/r2/README.md): its R2_TIER bucket bound, on Miniflare's R2, kept in the
   * run's store directory (gone when the stack stops); absent or false = off, as when no bucket is bound.
   */
  r2Tier?: boolean;
}

/** A workerd socket of a tier: a TCP one by its URL, or (behind a front) a Unix socket by its path. */
export type WorkerdSocket = { url: string } | { path: string };

export interface Stack {
  /** Edge base URL, `http://127.0.0.1:PORT` (the front, when there is one). */
  url: string;
  /** The edge's own workerd socket (a Unix socket behind the front). */
  edgeSocket: WorkerdSocket;
  /** The shield's own port, `http://127.0.0.1:PORT` (its front, when there is one; production has no such route). */
  shieldUrl: string;
  /** The shield's own workerd socket (a Unix socket behind its front). */
  shieldSocket: WorkerdSocket;
  /** The second edge's base URL (WorkersOptions.secondEdge). */
  secondEdgeUrl?: string;
  /** The second location's base URL (WorkersOptions.secondLocation): its own process, its own cache, the same shield. */
  secondLocationUrl?: string;
  mf: Miniflare;
  dispose(): Promise<void>;
}

/**
 * Both tiers, bundled from their entries. The public port is the edge's own workerd socket, not
 * Miniflare's entry worker (direct-miniflare.ts says why). With the front (`npm start`), every port
 * the stack serves clients on is a front (front.ts): the edge's and the shield's workerd sockets,
 * and Miniflare's entry, are Unix sockets in a directory of this user's only, since workerd's own
 * parser answers an absolute-form target, CONNECT or `Content-Length: abc` with a bare 500 before a
 * worker runs (so Miniflare's Node API over its entry, getCaches and the like, is not there with the
 * front). Caches live in Miniflare's temporary directory, gone on dispose.
 */
export async function startWorkers(options: WorkersOptions): Promise<Stack> {
  // Behind the front the edge must be wrapped in the front's check: an entry of its own would go without it.
  if (options.front && options.entries?.edge !== undefined) throw new Error('the front serves the edge it wraps only');
  const [edge, shield] = await Promise.all([
    bundleWorker(options.entries?.edge ?? edgeEntry(options)),
    bundleWorker(options.entries?.shield ?? shieldEntry(options)),
  ]);
  const stack = options.front
    ? await startFronted(options, { edge, shield })
    : await startBare(options, { edge, shield });
  const second = options.secondLocation;
  if (second === undefined || second === false) return stack;
  return withSecondLocation(stack, options, edge, second === true ? 'binding' : second.reach);
}

/** The stack with a second location (location.ts) reaching its shield by `reach`; stopped with it. */
async function withSecondLocation(
  stack: Stack,
  options: WorkersOptions,
  edge: WorkerBundle,
  reach: ShieldReach,
): Promise<Stack> {
  try {
    const location = await startLocation({
      edge,
      config: options.config,
      shieldUrl: stack.shieldUrl,
      reach,
      ...(options.front ? { front: true } : {}),
      ...(options.frontHeadTimeoutMs !== undefined ? { frontHeadTimeoutMs: options.frontHeadTimeoutMs } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    return {
      ...stack,
      secondLocationUrl: location.url,
      async dispose() {
        await location.dispose();
        await stack.dispose();
      },
    };
  } catch (error) {
    await stack.dispose().catch(() => undefined);
    throw error;
  }
}

/** Both tiers behind fronts (`npm start`): the tiers' workerd sockets are Unix sockets only the fronts use. */
async function startFronted(
  options: WorkersOptions,
  { edge, shield }: { edge: WorkerBundle; shield: WorkerBundle },
): Promise<Stack> {
  const frontToken = randomUUID();
  // mkdtemp makes it 0700: only this user reaches the sockets in it.
  const socketDir = await mkdtemp(join(tmpdir(), 'tiercache-'));
  const sockets = { edge: unixSocket(join(socketDir, 'edge')), shield: unixSocket(join(socketDir, 'shield')) };
  const removeDir = (): Promise<void> => rm(socketDir, { recursive: true, force: true });
  const started = await startDirectMiniflare(
    tierWorkers(options, { edge, shield }, { edge: sockets.edge.options, shield: sockets.shield.options }, frontToken),
    { inspectorPort: options.inspectorPort, entrySocket: join(socketDir, 'entry') },
  ).catch(async (error: unknown) => {
    await removeDir();
    throw error;
  });
  const fronts: Front[] = [];
  const dispose = async (): Promise<void> => {
    await Promise.all(fronts.map((front) => front.close()));
    await started.stop();
    await removeDir();
  };
  try {
    const allow = frontMethods(options.config);
    const headTimeout = options.frontHeadTimeoutMs !== undefined ? { headTimeoutMs: options.frontHeadTimeoutMs } : {};
    fronts.push(
      await startFront({
        upstream: { path: sockets.edge.path },
        token: frontToken,
        allow,
        host: LOOPBACK,
        port: options.port ?? 0,
        ...headTimeout,
      }),
    );
    // The shield checks the edge's credential, not the front's field (which no origin ever receives).
    fronts.push(
      await startFront({
        upstream: { path: sockets.shield.path },
        token: randomUUID(),
        allow,
        host: LOOPBACK,
        port: options.shieldPort ?? 0,
        ...headTimeout,
      }),
    );
    const [edgeFront, shieldFront] = fronts as [Front, Front];
    return {
      url: edgeFront.url,
      edgeSocket: { path: sockets.edge.path },
      shieldUrl: shieldFront.url,
      shieldSocket: { path: sockets.shield.path },
      mf: started.mf,
      dispose,
    };
  } catch (error) {
    await dispose().catch(() => undefined);
    throw error;
  }
}

/** Both tiers on workerd's own TCP sockets, no front: what the benchmarks measure. */
async function startBare(
  options: WorkersOptions,
  bundles: { edge: WorkerBundle; shield: WorkerBundle },
): Promise<Stack> {
  const { mf, urls, stop } = await startDirectMiniflare(
    tierWorkers(
      options,
      bundles,
      { edge: directSocket(options.port ?? 0), shield: directSocket(options.shieldPort ?? 0) },
      undefined,
    ),
    { inspectorPort: options.inspectorPort },
  );
  const edgeUrl = urls.get('edge');
  const shieldUrl = urls.get('shield');
  const secondEdgeUrl = urls.get(SECOND_EDGE);
  if (edgeUrl === undefined || shieldUrl === undefined) {
    await stop();
    throw new Error('Miniflare gave no direct socket to the edge or the shield');
  }
  return {
    url: edgeUrl.origin,
    edgeSocket: { url: edgeUrl.origin },
    shieldUrl: shieldUrl.origin,
    shieldSocket: { url: shieldUrl.origin },
    ...(secondEdgeUrl === undefined ? {} : { secondEdgeUrl: secondEdgeUrl.origin }),
    mf,
    dispose: stop,
  };
}

/** The refusing entry, the edge and the shield, as Miniflare runs them. */
function tierWorkers(
  options: WorkersOptions,
  bundles: { edge: WorkerBundle; shield: WorkerBundle },
  sockets: Record<'edge' | 'shield', Pick<WorkerOptions, 'unsafeDirectSockets'>>,
  frontToken: string | undefined,
): WorkerOptions[] {
  const bindings = definedStrings(options.config);
  const edge: WorkerOptions = {
    ...moduleWorker('edge', bundles.edge.code, bundles.edge.path),
    compatibilityFlags: COMPATIBILITY_FLAGS,
    bindings: frontToken === undefined ? bindings : { ...bindings, LOCAL_FRONT_TOKEN: frontToken },
    serviceBindings: { SHIELD: 'shield', ...clockBinding(options.clock) },
    kvNamespaces: { PURGES: PURGES_NAMESPACE },
    // The stats store is the shield's Durable Object, bound by script name as when deployed.
    durableObjects: { STATS: { className: STATS_CLASS, scriptName: 'shield' } },
    ...(options.edgeCache === false ? { cache: false } : {}),
  };
  const second =
    options.secondEdge === true && frontToken === undefined
      ? [{ ...edge, ...moduleWorker(SECOND_EDGE, bundles.edge.code, bundles.edge.path), ...directSocket(0) }]
      : [];
  return [
    // Miniflare's own entry socket routes to the first worker: here one that serves nothing,
    // so that only the printed port answers for the edge.
    refusingEntry(),
    { ...edge, ...sockets.edge },
    ...second,
    {
      ...moduleWorker('shield', bundles.shield.code, bundles.shield.path),
      compatibilityFlags: COMPATIBILITY_FLAGS,
      bindings,
      kvNamespaces: { PURGES: PURGES_NAMESPACE },
      durableObjects: { STATS: STATS_CLASS },
      ...(options.r2Tier === true ? { r2Buckets: { R2_TIER: R2_TIER_BUCKET } } : {}),
      serviceBindings: clockBinding(options.clock),
      ...sockets.shield,
      ...(options.resolve ? { outboundService: resolvingOutbound(options.resolve) } : {}),
    },
  ];
}

export { FRONT_HEADER };
