// Both tiers in one Miniflare: the edge on the public port with its SHIELD service binding,
// the shield behind it and also on a direct socket of its own (to prove it refuses callers
// that are not the edge). Caches live in Miniflare's temporary directory, gone on dispose.
// The public port is the edge's own workerd socket, not Miniflare's entry worker
// (direct-miniflare.ts says why).
import type { Miniflare, WorkerOptions } from 'miniflare';
import type { RawConfig } from '../shared/config/config.ts';
import { randomUUID } from 'node:crypto';
import { bundleWorker, type WorkerBundle } from './bundle.ts';
import { directSocket, LOOPBACK, moduleWorker, startDirectMiniflare } from './direct-miniflare.ts';
import { FRONT_HEADER, startFront } from './front.ts';
import { resolvingOutbound, type ResolveMap } from './outbound.ts';

/** As in wrangler.toml: request.signal aborts when the client goes away. */
const COMPATIBILITY_FLAGS = ['enable_request_signal'];
const EDGE_ENTRY = 'worker/index.ts';
const SHIELD_ENTRY = 'shield/index.ts';
/** One KV namespace id for both workers: the purge list is shared, as in one account. */
const PURGES_NAMESPACE = 'tiercache-purges';
/** The stats store's class, exported by the shield's script (shield/stats-store.ts). */
const STATS_CLASS = 'StatsStore';

export interface WorkersOptions {
  /** Bindings for both workers; absent values are not bound. */
  config: RawConfig;
  /** Edge port; 0 (the default) = any free port. */
  port?: number;
  /** Port of the shield's direct socket; 0 (the default) = any free port. */
  shieldPort?: number;
  /** Host name → `host:port` for the shield's fetches to names that do not resolve. */
  resolve?: ResolveMap;
  /** Entry files relative to the project root, to run other workers in the same stack (tests). */
  entries?: { edge?: string; shield?: string };
  /** A movable clock (ms epoch) both workers judge freshness by; absent = the real one. */
  clock?: () => number;
  /** Opens workerd's V8 inspector on this port (bench/hit-cost.ts); absent = closed. */
  inspectorPort?: number;
  /**
   * The local front on the edge's port (front.ts: what Cloudflare's front end does before a
   * Worker runs): malformed requests get a 4xx there, and the edge's own socket refuses what did
   * not come through it. `npm start` and the tests of hostile requests run with it; the
   * benchmarks measure the edge's socket itself.
   */
  front?: boolean;
  /** How long the front waits for a request head before it answers 408 (tests: short); absent = FRONT_HEAD_TIMEOUT_MS. */
  frontHeadTimeoutMs?: number;
}

export interface Stack {
  /** Edge base URL, `http://127.0.0.1:PORT` (the front, when there is one). */
  url: string;
  /** The edge's own workerd socket (behind the front, when there is one). */
  edgeSocketUrl: string;
  /** The shield's own socket, `http://127.0.0.1:PORT` (production has no such route). */
  shieldUrl: string;
  mf: Miniflare;
  dispose(): Promise<void>;
}

export async function startWorkers(options: WorkersOptions): Promise<Stack> {
  const [edge, shield] = await Promise.all([
    bundleWorker(options.entries?.edge ?? EDGE_ENTRY),
    bundleWorker(options.entries?.shield ?? SHIELD_ENTRY),
  ]);
  const frontToken = options.front ? randomUUID() : undefined;
  const { mf, urls, stop } = await startDirectMiniflare(tierWorkers(options, { edge, shield }, frontToken), { inspectorPort: options.inspectorPort });
  const edgeUrl = urls.get('edge');
  const shieldUrl = urls.get('shield');
  if (edgeUrl === undefined || shieldUrl === undefined) {
    await stop();
    throw new Error('Miniflare gave no direct socket to the edge or the shield');
  }
  if (frontToken === undefined) return { url: edgeUrl.origin, shieldUrl: shieldUrl.origin, edgeSocketUrl: edgeUrl.origin, mf, dispose: stop };
  try {
    const allow = options.config.ORIGIN_KIND === 'http' ? 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE' : 'GET, HEAD, OPTIONS';
    const front = await startFront({ upstream: { host: LOOPBACK, port: Number(edgeUrl.port) }, token: frontToken, allow, host: LOOPBACK, port: options.port ?? 0, ...(options.frontHeadTimeoutMs !== undefined ? { headTimeoutMs: options.frontHeadTimeoutMs } : {}) });
    const dispose = async (): Promise<void> => {
      await front.close();
      await stop();
    };
    return { url: front.url, shieldUrl: shieldUrl.origin, edgeSocketUrl: edgeUrl.origin, mf, dispose };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The refusing entry, the edge and the shield, as Miniflare runs them. */
function tierWorkers(options: WorkersOptions, bundles: { edge: WorkerBundle; shield: WorkerBundle }, frontToken: string | undefined): WorkerOptions[] {
  const bindings = definedStrings(options.config);
  return [
    // Miniflare's own entry socket routes to the first worker: here one that serves nothing,
    // so that only the printed port answers for the edge.
    moduleWorker('refuse', REFUSE),
    {
      ...moduleWorker('edge', bundles.edge.code, bundles.edge.path),
      compatibilityFlags: COMPATIBILITY_FLAGS,
      bindings: frontToken === undefined ? bindings : { ...bindings, LOCAL_FRONT_TOKEN: frontToken },
      serviceBindings: { SHIELD: 'shield', ...clockBinding(options.clock) },
      kvNamespaces: { PURGES: PURGES_NAMESPACE },
      // The stats store is the shield's Durable Object, bound by script name as when deployed.
      durableObjects: { STATS: { className: STATS_CLASS, scriptName: 'shield' } },
      // Behind the front, the edge's socket takes any free port: the front has the printed one.
      ...directSocket(frontToken === undefined ? (options.port ?? 0) : 0),
    },
    {
      ...moduleWorker('shield', bundles.shield.code, bundles.shield.path),
      compatibilityFlags: COMPATIBILITY_FLAGS,
      bindings,
      kvNamespaces: { PURGES: PURGES_NAMESPACE },
      durableObjects: { STATS: STATS_CLASS },
      serviceBindings: clockBinding(options.clock),
      ...directSocket(options.shieldPort ?? 0),
      ...(options.resolve ? { outboundService: resolvingOutbound(options.resolve) } : {}),
    },
  ];
}

/** The first worker, which Miniflare's entry socket answers with: nothing is served there. */
const REFUSE = `export default { fetch() {
  return new Response('421 this port serves nothing: send requests to the edge port tiercache printed\\n', { status: 421, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
} };`;

export { FRONT_HEADER };

function definedStrings(config: RawConfig): Record<string, string> {
  return Object.fromEntries(Object.entries(config).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * TEST_CLOCK for both workers (shared/tier/test-clock.ts): a Node function answering the fake time,
 * so that a test can move the clock freshness is judged by instead of sleeping.
 */
function clockBinding(clock: (() => number) | undefined): Record<string, (request: Request) => Response> {
  return clock === undefined ? {} : { TEST_CLOCK: () => new Response(String(clock())) };
}
