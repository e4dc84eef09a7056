// A second edge location as its own workerd process: its own Miniflare, so its own cache, running the edge's bundle
// and reaching the stack's shield across processes, as another Cloudflare location's edge reaches the one shield.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkerOptions } from 'miniflare';
import type { RawConfig } from '../shared/config/config.ts';
import type { WorkerBundle } from './bundle.ts';
import { directSocket, LOOPBACK, moduleWorker, startDirectMiniflare, unixSocket } from './direct-miniflare.ts';
import { type Front, startFront } from './front.ts';
import {
  COMPATIBILITY_FLAGS,
  clockBinding,
  definedStrings,
  frontMethods,
  PURGES_NAMESPACE,
  refusingEntry,
  spreadingEntry,
} from './tier-options.ts';

/**
 * How the location reaches the shield, by the shield's two cache modes (docs/deploying.md "Two shield cache modes"):
 * `binding`, its SHIELD service binding, here to an external address (the shield's port), as 'workers-cache' mode
 * binds it; `url`, a `fetch` to SHIELD_URL (the shield's port), as 'cache-api' mode reaches a shield on a hostname of
 * its own.
 */
export type ShieldReach = 'binding' | 'url';

export interface LocationOptions {
  /** The edge's bundle (the stack's, bundled once). */
  edge: WorkerBundle;
  /** The settings, as the stack's edge has them. */
  config: RawConfig;
  /** The shield's base URL on loopback, `http://127.0.0.1:PORT` (its front, when the stack has one). */
  shieldUrl: string;
  reach: ShieldReach;
  /** A local front on the location's port, as the first edge has (front.ts). */
  front?: boolean;
  frontHeadTimeoutMs?: number;
  /** The test clock, bound as TEST_CLOCK: it moves the edge only when `edge` is the local one (tier-options.ts). */
  clock?: () => number;
  /**
   * Copies of the edge in the process, each a worker of its own (an isolate of its own, its own module state: memory
   * cache, purge list copy, stats batch), sharing the process's Cache API as a location's isolates share its cache;
   * with more than one, the location's socket is an entry that spreads requests over them. Default 1.
   */
  copies?: number;
  /**
   * What the location shares with the others, when a harness gives it (bench/sim): each copy's PURGES (and STATS) as
   * wrapped bindings, and the workers whose modules implement them; absent = a purge list of its own, no stats store.
   */
  shared?: SharedBindings;
}

/** Bindings a location shares with other processes (bench/sim/tiercache-system.ts). */
interface SharedBindings {
  /** The workers the wrapped bindings run (Miniflare's `wrappedBindings` name them by script). */
  workers: WorkerOptions[];
  /** The wrapped bindings of the copy named `copy` (PURGES, STATS). */
  bindings(copy: string): NonNullable<WorkerOptions['wrappedBindings']>;
}

export interface Location {
  /** The location's base URL, `http://127.0.0.1:PORT` (its front, when it has one). */
  url: string;
  /** The edge copies' worker names (LocationOptions.copies). */
  copies: readonly string[];
  dispose(): Promise<void>;
}

/** The worker's name in its process (the spreading entry's, with several copies). */
const EDGE_NAME = 'edge';

/**
 * Another edge location: the edge's bundle in a Miniflare of its own (its own cache, in that process's temporary
 * directory), on a port of its own, behind a front of its own when `front`. What one process cannot share with another
 * it has its own of (local/README.md "A second location"): the purge list, a KV namespace of its own, so it does not
 * see purges made at the first location; and no stats store (the edge counts nothing without STATS; the shield, in
 * the stack's process, still counts what this location asks of it). Unless a harness shares them (`shared`: the
 * topology runner's one modelled KV namespace and one stats store, bench/sim/tiercache-system.ts).
 */
export async function startLocation(options: LocationOptions): Promise<Location> {
  const frontToken = options.front === true ? randomUUID() : undefined;
  const socketDir = frontToken === undefined ? undefined : await mkdtemp(join(tmpdir(), 'tiercache-location-'));
  const removeDir = (): Promise<void> =>
    socketDir === undefined ? Promise.resolve() : rm(socketDir, { recursive: true, force: true });
  const socket = socketDir === undefined ? undefined : unixSocket(join(socketDir, EDGE_NAME));
  const copies = copyNames(options.copies ?? 1);
  const listening = socket?.options ?? directSocket(0);
  const edges =
    copies.length === 1
      ? [{ ...locationEdge(options, frontToken, EDGE_NAME), ...listening }]
      : [
          { ...spreadingEntry(EDGE_NAME, copies), ...listening },
          ...copies.map((copy) => locationEdge(options, frontToken, copy)),
        ];
  const started = await startDirectMiniflare(
    [refusingEntry(), ...edges, ...(options.shared?.workers ?? [])],
    socketDir === undefined ? {} : { entrySocket: join(socketDir, 'entry') },
  ).catch(async (error: unknown) => {
    await removeDir();
    throw error;
  });
  if (socket === undefined || frontToken === undefined) {
    const url = started.urls.get(EDGE_NAME);
    if (url === undefined) {
      await started.stop();
      throw new Error('Miniflare gave no direct socket to the second location');
    }
    return { url: url.origin, copies, dispose: started.stop };
  }
  let front: Front;
  try {
    front = await startFront({
      upstream: { path: socket.path },
      token: frontToken,
      allow: frontMethods(options.config),
      host: LOOPBACK,
      port: 0,
      ...(options.frontHeadTimeoutMs !== undefined ? { headTimeoutMs: options.frontHeadTimeoutMs } : {}),
    });
  } catch (error) {
    await started.stop().catch(() => undefined);
    await removeDir();
    throw error;
  }
  return {
    url: front.url,
    copies,
    async dispose() {
      await front.close();
      await started.stop();
      await removeDir();
    },
  };
}

/** The copies' worker names: the edge's own name when it is alone, `edge-1`… when an entry spreads over them. */
function copyNames(count: number): string[] {
  if (!Number.isInteger(count) || count < 1) throw new Error(`expected 1 or more copies of the edge, got ${count}`);
  return count === 1 ? [EDGE_NAME] : Array.from({ length: count }, (_, index) => `${EDGE_NAME}-${index + 1}`);
}

/**
 * The edge as this location runs it: its settings, its way to the shield, and either its own purge list and no stats
 * store, or the shared bindings a harness gave it.
 */
function locationEdge(options: LocationOptions, frontToken: string | undefined, name: string): WorkerOptions {
  const { SHIELD_URL: _unused, ...config } = options.config;
  const bindings = {
    ...definedStrings(config),
    ...(options.reach === 'url' ? { SHIELD_URL: options.shieldUrl } : {}),
    ...(frontToken === undefined ? {} : { LOCAL_FRONT_TOKEN: frontToken }),
  };
  const shield = options.reach === 'binding' ? { SHIELD: externalService(options.shieldUrl) } : {};
  return {
    ...moduleWorker(name, options.edge.code, options.edge.path),
    compatibilityFlags: COMPATIBILITY_FLAGS,
    bindings,
    serviceBindings: { ...shield, ...clockBinding(options.clock) },
    ...(options.shared === undefined
      ? { kvNamespaces: { PURGES: PURGES_NAMESPACE } }
      : { wrappedBindings: options.shared.bindings(name) }),
  };
}

/** A service binding to a server outside this workerd (Miniflare's `external`: workerd's ExternalServer), over HTTP. */
function externalService(baseUrl: string): { external: { address: string; http: Record<string, never> } } {
  return { external: { address: new URL(baseUrl).host, http: {} } };
}
