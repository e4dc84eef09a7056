// GET /__tiercache/health (docs/operating.md): whether the edge runs, whether the shield answered in time, and what
// the shield found of the origin (shared/http/health-report.ts). No token, nothing sensitive, never cached.

import { VERSION } from '../shared/config/version.ts';
import {
  canServe,
  HEALTH_PROBE_MS,
  LOCAL_COLO,
  readShieldHealth,
  type ShieldHealth,
} from '../shared/http/health-report.ts';
import { isolatePurges } from '../shared/purge/purge-store.ts';
import { HEALTH_PATH } from '../shared/request/reserved-paths.ts';
import type { EdgeBindings } from './env.ts';
import { askShield } from './shield-client.ts';

/** A shield slower than this counts as not answering: its probe's longest wait, and time for the hop. */
const SHIELD_WAIT_MS = HEALTH_PROBE_MS + 2_000;

type ShieldState = 'ok' | 'unreachable' | 'timeout' | `error ${number}`;

/**
 * 200 when the origin serves with the configured credentials, 503 when it cannot or the shield does not answer: a
 * monitor that reads only the status is told the truth. With it, how each tier's reads of the purge list went (an
 * isolate that cannot read KV still serves: docs/purge.md "When KV cannot be read"), read on the edge's clock.
 */
export async function answerHealth(edge: EdgeBindings, method: string, colo: string = LOCAL_COLO): Promise<Response> {
  const started = Date.now();
  const [{ shield, health }] = await Promise.all([
    shieldHealth(edge),
    isolatePurges.purgeList(edge.purges, edge.clock.now()),
  ]);
  const serving = health !== undefined && canServe(health.origin);
  const body = {
    status: serving ? 'ok' : 'failing',
    edge: 'ok',
    shield,
    origin: health?.origin ?? 'unknown',
    originDetail: health?.detail ?? 'the shield did not answer, so the origin was not asked',
    ...(health === undefined ? {} : { probe: health.probe, probeMs: health.probeMs, age: health.age }),
    // Which cache the shield keeps its copies in (shared/tiers/shield-caches.ts), as it said.
    ...(health?.cache === undefined ? {} : { cache: health.cache }),
    purgeList: {
      edge: isolatePurges.purgeListState(edge.purges, edge.clock.now()),
      ...(health?.purgeList === undefined ? {} : { shield: health.purgeList }),
    },
    shieldMs: Date.now() - started,
    version: VERSION,
    // Where each tier ran (tierLocation): what `npm run verify` compares between two runs.
    colo,
    ...(health?.colo === undefined ? {} : { shieldColo: health.colo }),
  };
  const text = `${JSON.stringify(body)}\n`;
  return new Response(method === 'HEAD' ? null : text, {
    status: serving ? 200 : 503,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'content-length': String(new TextEncoder().encode(text).byteLength),
    },
  });
}

/** The shield's state, and its health answer when it gave one (a 503 with a finding is an answer). */
async function shieldHealth(edge: EdgeBindings): Promise<{ shield: ShieldState; health: ShieldHealth | undefined }> {
  const started = Date.now();
  try {
    const answer = await askShield(edge.shield, edge.config, {
      method: 'GET',
      path: HEALTH_PATH,
      signal: AbortSignal.timeout(SHIELD_WAIT_MS),
    });
    const health = readShieldHealth(await answer.json().catch(() => undefined));
    return { shield: health !== undefined ? 'ok' : `error ${answer.status}`, health };
  } catch {
    return { shield: Date.now() - started >= SHIELD_WAIT_MS ? 'timeout' : 'unreachable', health: undefined };
  }
}
