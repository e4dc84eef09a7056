// What every workerd process of the local stack gives Miniflare alike: the deployed workers' compatibility flags,
// the entries each tier runs, the refusing entry worker, the settings as string bindings, and the test clock
// (workers.ts, location.ts).

import type { WorkerOptions } from 'miniflare';
import type { RawConfig } from '../shared/config/config.ts';
import deployment from '../tiercache.config.ts';
import { moduleWorker } from './direct-miniflare.ts';

/** The deployed workers' (tiercache.config.ts): request.signal aborts when the client goes away. */
export const COMPATIBILITY_FLAGS = [...deployment.compatibility.flags];
/** One KV namespace id per process for the purge list: in one process, both workers share it, as in one account. */
export const PURGES_NAMESPACE = 'tiercache-purges';

/** The deployed entries, and the local ones wrapped around them where the local stack needs its own machinery. */
const ENTRIES = {
  edge: 'worker/index.ts',
  shield: 'shield/index.ts',
  /** The front's check and the test clock, each where bound (local-edge.ts). */
  localEdge: 'local/local-edge.ts',
  /** The test clock, where bound (local-shield.ts). */
  localShield: 'local/local-shield.ts',
} as const;

/**
 * The edge's entry, relative to the project root: the local one behind a front or with a test clock, else the deployed
 * one as it is (what the benchmarks measure).
 */
export function edgeEntry(local: { front?: boolean; clock?: () => number }): string {
  return local.front === true || local.clock !== undefined ? ENTRIES.localEdge : ENTRIES.edge;
}

/** The shield's entry, relative to the project root: the local one with a test clock, else the deployed one. */
export function shieldEntry(local: { clock?: () => number }): string {
  return local.clock !== undefined ? ENTRIES.localShield : ENTRIES.shield;
}

/** The first worker, which Miniflare's entry socket answers with: nothing is served there. */
export function refusingEntry(): WorkerOptions {
  return moduleWorker('refuse', REFUSE);
}

const REFUSE = `export default { fetch() {
  return new Response('421 this port serves nothing: send requests to the edge port tiercache printed\\n', { status: 421, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
} };`;

/**
 * An entry named `name` that hands each request to the next of `copies` (workers of the same process, by service
 * binding), in turn: a location's requests spread over its isolates (location.ts).
 */
export function spreadingEntry(name: string, copies: readonly string[]): WorkerOptions {
  const serviceBindings = Object.fromEntries(copies.map((copy, index) => [`COPY_${index}`, copy]));
  return {
    ...moduleWorker(name, SPREAD.replace('COPIES', String(copies.length))),
    compatibilityFlags: COMPATIBILITY_FLAGS,
    serviceBindings,
  };
}

const SPREAD = `let next = 0;
export default { fetch(request, env) {
  const copy = env['COPY_' + next];
  next = (next + 1) % COPIES;
  return copy.fetch(request);
} };`;

/** The settings given, as string bindings (absent ones not bound). */
export function definedStrings(config: RawConfig): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * TEST_CLOCK (test-clock.ts): a Node function answering the fake time, so that a test can move the clock freshness is
 * judged by instead of sleeping. Only the local entries read it (edgeEntry, shieldEntry).
 */
export function clockBinding(clock: (() => number) | undefined): Record<string, (request: Request) => Response> {
  return clock === undefined ? {} : { TEST_CLOCK: () => new Response(String(clock())) };
}

/** The methods the local front lets through (`OPTIONS *` answers them): a site's every method, an S3 bucket's reads. */
export function frontMethods(config: RawConfig): string {
  return config.ORIGIN_KIND === 'http' ? 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE' : 'GET, HEAD, OPTIONS';
}
