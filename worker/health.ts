// GET /__tiercache/health (README "Operating tiercache"): no token, nothing sensitive, never
// cached. It says that the edge runs, whether the shield answered its own health question in
// time, and the version; 200 either way (a monitor reads `shield` for the second tier).

import { HEALTH_PATH } from '../shared/target/internal.ts';
import { VERSION } from '../shared/config/version.ts';
import type { EdgeBindings } from './env.ts';
import { askShield } from './shield-client.ts';

/** A shield slower than this counts as not answering. */
const SHIELD_WAIT_MS = 2_000;

export async function answerHealth(edge: EdgeBindings, method: string): Promise<Response> {
  const started = Date.now();
  const shield = await shieldHealth(edge);
  const body = { status: 'ok', edge: 'ok', shield, shieldMs: Date.now() - started, version: VERSION };
  const text = `${JSON.stringify(body)}\n`;
  return new Response(method === 'HEAD' ? null : text, {
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': String(new TextEncoder().encode(text).byteLength) },
  });
}

async function shieldHealth(edge: EdgeBindings): Promise<'ok' | 'unreachable' | 'timeout' | `error ${number}`> {
  const started = Date.now();
  try {
    const answer = await askShield(edge.shield, edge.config, { method: 'GET', path: HEALTH_PATH, signal: AbortSignal.timeout(SHIELD_WAIT_MS) });
    await answer.body?.cancel();
    return answer.ok ? 'ok' : `error ${answer.status}`;
  } catch {
    return Date.now() - started >= SHIELD_WAIT_MS ? 'timeout' : 'unreachable';
  }
}
