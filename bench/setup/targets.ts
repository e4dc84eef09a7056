// The caches under test, each in front of the same shaped origin: tiercache (both workers in
// workerd via Miniflare, ORIGIN_KIND=http), and, when installed, Varnish (malloc) and nginx
// (proxy_cache, and the slice module at tiercache's slice size); and the naive single-tier
// workers on tiercache's runtime (caches.default, a global Map). Fresh processes start with
// empty caches; `direct` is the shaped origin itself, the baseline every speed-up is against.
// tiercache is measured on the edge's own workerd socket, as deployed; `tiercache-front` is the
// same edge through the local front `npm start` puts before it (front-layer.ts), a layer of its own.

import { randomUUID } from 'node:crypto';
import { startWorkers } from '../../local/workers.ts';
import type { RawConfig } from '../../shared/config/config.ts';
import { frontBefore } from './front-layer.ts';
import { type Peers, startNaiveWorkers, startNginx, startVarnish } from './peers/peers.ts';

export const SLICE_SIZE = 8 * 2 ** 20;
const VARNISH_STORAGE_MIB = 2048;

export type TargetName =
  | 'direct'
  | 'tiercache'
  | 'tiercache-front'
  | 'varnish'
  | 'nginx'
  | 'nginx-slice'
  | 'naive-cache'
  | 'naive-map';

/** The naive baselines, which need nothing installed. */
export const NAIVE_NAMES: readonly TargetName[] = ['naive-cache', 'naive-map'];

/** tiercache's edge (the same isolate as `tiercache`) through the local front: what the front costs a hit. */
export const FRONT_NAME = 'tiercache-front' satisfies TargetName;

/** Those run only where the warm small hits are judged (Workload V at the naive baselines' concurrency). */
export const JUDGED_CELLS_ONLY: readonly TargetName[] = [...NAIVE_NAMES, FRONT_NAME];

export interface Target {
  name: TargetName;
  url: string;
  /** Ends the process(es) behind it; a second call is a no-op. */
  stop(): Promise<void>;
}

/** The cache targets to run, in report order: tiercache first, then the installed peers. */
export function cacheNames(peers: Peers): TargetName[] {
  const names: TargetName[] = ['tiercache'];
  if (peers.varnish) names.push('varnish');
  // Both nginx peers come from one config that needs the slice module.
  if (peers.nginx?.hasSlice) names.push('nginx', 'nginx-slice');
  return names;
}

/**
 * Starts the targets named (fresh, empty caches) in front of `origin`, all at once (each is its
 * own process); answers them in the order named; stops those started if one fails.
 */
export async function startTargets(names: readonly TargetName[], origin: string, peers: Peers): Promise<Target[]> {
  // nginx and nginx-slice are one process, and so are the two naive workers: one start each.
  const starts = [...new Set(names.map(startedWith))];
  const settled = await Promise.allSettled(starts.map((name) => startTarget(name, origin, peers, names)));
  const targets = settled.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) {
    await stopTargets(targets);
    throw failed.reason;
  }
  return names.flatMap((name) => targets.filter((target) => target.name === name));
}

function startedWith(name: TargetName): TargetName {
  if (name === FRONT_NAME) return 'tiercache';
  if (name === 'nginx-slice') return 'nginx';
  if (name === 'naive-map') return 'naive-cache';
  return name;
}

export async function stopTargets(targets: readonly Target[]): Promise<void> {
  for (const target of targets) await target.stop().catch(() => undefined);
}

async function startTarget(
  name: TargetName,
  origin: string,
  peers: Peers,
  named: readonly TargetName[],
): Promise<Target[]> {
  switch (name) {
    case 'direct':
      return [{ name, url: origin, stop: async () => undefined }];
    case 'tiercache':
    case 'tiercache-front': {
      const config: RawConfig = {
        ORIGIN_KIND: 'http',
        ORIGIN_URL: origin,
        DEFAULT_TTL: '3600',
        SHIELD_TOKEN: randomUUID(),
        SLICE_SIZE: String(SLICE_SIZE),
      };
      const stack = await startWorkers({ config, port: 0 });
      if (!named.includes(FRONT_NAME))
        return [{ name: 'tiercache', url: stack.url, stop: once(() => stack.dispose()) }];
      const front = await frontBefore(stack.url).catch(async (error: unknown) => {
        await stack.dispose();
        throw error;
      });
      // One stop for both: the front goes first, then the stack behind it.
      const stop = once(async () => {
        await front.close();
        await stack.dispose();
      });
      return [
        { name: 'tiercache', url: stack.url, stop },
        { name: FRONT_NAME, url: front.url, stop },
      ];
    }
    case 'varnish': {
      const peer = await startVarnish({
        origin,
        storageMiB: VARNISH_STORAGE_MIB,
        ...(peers.varnish && { installed: peers.varnish }),
      });
      return [{ name, url: peer.url, stop: once(peer.stop) }];
    }
    case 'nginx':
    case 'nginx-slice': {
      // One nginx process serves both; both are started together.
      const nginx = await startNginx({ origin, sliceSize: SLICE_SIZE, ...(peers.nginx && { installed: peers.nginx }) });
      const stop = once(nginx.cache.stop);
      return [
        { name: 'nginx', url: nginx.cache.url, stop },
        { name: 'nginx-slice', url: nginx.slice.url, stop },
      ];
    }
    case 'naive-cache':
    case 'naive-map': {
      // One workerd serves both.
      const naive = await startNaiveWorkers({ origin });
      const stop = once(naive.stop);
      return [
        { name: 'naive-cache', url: naive.cacheUrl, stop },
        { name: 'naive-map', url: naive.mapUrl, stop },
      ];
    }
  }
}

function once(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= stop());
}
