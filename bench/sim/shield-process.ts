// The shield of a topology as its own workerd process: the shield's bundle on a socket of its own (what every
// location's shield link leads to), the stats store's objects (the shield script's Durable Object class) behind the
// gateway every process's STATS reaches, and PURGES and STATS bound as every other process binds them.

import type { WorkerOptions } from 'miniflare';
import type { WorkerBundle } from '../../local/bundle.ts';
import { COMPATIBILITY_DATE, directSocket, moduleWorker, startDirectMiniflare } from '../../local/direct-miniflare.ts';
import { COMPATIBILITY_FLAGS, clockBinding, definedStrings, refusingEntry } from '../../local/tier-options.ts';
import { R2_TIER_BUCKET } from '../../local/workers.ts';
import type { RawConfig } from '../../shared/config/config.ts';
import { STATS_GATEWAY, statsGatewayWorker } from './stats-relay.ts';

/** The shield's worker name in its process (the stats gateway binds its Durable Object class by it). */
const SHIELD_NAME = 'shield';

export interface ShieldProcessOptions {
  shield: WorkerBundle;
  /** The settings, ORIGIN_URL naming the shield↔origin link. */
  config: RawConfig;
  /** The wrapped bindings' workers (kv-server.ts, stats-relay.ts) and the shield's own PURGES and STATS. */
  shared: { workers: WorkerOptions[]; bindings: NonNullable<WorkerOptions['wrappedBindings']> };
  clock?: () => number;
  /** The R2 tier's bucket bound (R2_TIER), on Miniflare's R2 (local/workers.ts R2_TIER_BUCKET). */
  r2Tier?: boolean;
}

export interface ShieldProcess {
  /** The shield's socket, `http://127.0.0.1:PORT`: behind every location's shield link. */
  url: string;
  /** The stats gateway's socket (stats-relay.ts). */
  statsGatewayUrl: string;
  stop(): Promise<void>;
}

export async function startShieldProcess(options: ShieldProcessOptions): Promise<ShieldProcess> {
  const shield: WorkerOptions = {
    ...moduleWorker(SHIELD_NAME, options.shield.code, options.shield.path),
    compatibilityFlags: COMPATIBILITY_FLAGS,
    bindings: definedStrings(options.config),
    wrappedBindings: options.shared.bindings,
    serviceBindings: clockBinding(options.clock),
    ...(options.r2Tier === true ? { r2Buckets: { R2_TIER: R2_TIER_BUCKET } } : {}),
    ...directSocket(0),
  };
  const started = await startDirectMiniflare([
    refusingEntry(),
    shield,
    statsGatewayWorker(COMPATIBILITY_DATE, SHIELD_NAME),
    ...options.shared.workers,
  ]);
  const url = started.urls.get(SHIELD_NAME);
  const gateway = started.urls.get(STATS_GATEWAY);
  if (url === undefined || gateway === undefined) {
    await started.stop();
    throw new Error('Miniflare gave no direct socket to the shield or the stats gateway');
  }
  return { url: url.origin, statsGatewayUrl: gateway.origin, stop: started.stop };
}
