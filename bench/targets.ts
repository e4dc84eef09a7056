// The caches under test, each in front of the same shaped origin: tiercache (both workers in
// workerd via Miniflare, ORIGIN_KIND=http), and, when installed, Varnish (malloc) and nginx
// (proxy_cache, and the slice module at tiercache's slice size). Fresh processes start with
// empty caches; `direct` is the shaped origin itself, the baseline every speed-up is against.

import { randomUUID } from 'node:crypto';
import type { RawConfig } from '../shared/config.ts';
import { startWorkers } from '../test/stack/workers.ts';
import { type Peers, startNginx, startVarnish } from './peers/peers.ts';

export const SLICE_SIZE = 8 * 2 ** 20;
const VARNISH_STORAGE_MIB = 2048;

export type TargetName = 'direct' | 'tiercache' | 'varnish' | 'nginx' | 'nginx-slice';

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

/** Starts the targets named (fresh, empty caches) in front of `origin`; stops those started if one fails. */
export async function startTargets(names: readonly TargetName[], origin: string, peers: Peers): Promise<Target[]> {
  const targets: Target[] = [];
  try {
    for (const name of names) {
      if (targets.some((target) => target.name === name)) continue;
      targets.push(...(await startTarget(name, origin, peers)));
    }
    return targets.filter((target) => names.includes(target.name));
  } catch (error) {
    await stopTargets(targets);
    throw error;
  }
}

export async function stopTargets(targets: readonly Target[]): Promise<void> {
  for (const target of targets) await target.stop().catch(() => undefined);
}

async function startTarget(name: TargetName, origin: string, peers: Peers): Promise<Target[]> {
  switch (name) {
    case 'direct':
      return [{ name, url: origin, stop: async () => undefined }];
    case 'tiercache': {
      const config: RawConfig = { ORIGIN_KIND: 'http', ORIGIN_URL: origin, DEFAULT_TTL: '3600', SHIELD_TOKEN: randomUUID(), SLICE_SIZE: String(SLICE_SIZE) };
      const stack = await startWorkers({ config, port: 0 });
      return [{ name, url: stack.url, stop: once(() => stack.dispose()) }];
    }
    case 'varnish': {
      const peer = await startVarnish({ origin, storageMiB: VARNISH_STORAGE_MIB, ...(peers.varnish && { installed: peers.varnish }) });
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
  }
}

function once(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= stop());
}
