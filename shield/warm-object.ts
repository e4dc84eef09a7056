// The shield warming one object (docs/warming.md): a GET of it through the shield's own read path, its body drained
// here (shared/tier/warm-read.ts), so that the next read of it from any edge location is a hit here. `warmObject` is
// the primitive, for whatever warms the shield (the edge's warm API, through acceptWarm; prefetching what a player will
// read next, here); acceptWarm is POST WARM_PATH, the edge's call, one object a call.

import { HOST_HEADER, PURGED_AT_HEADER, SHIELD_ORIGIN, SOFT_PURGED_AT_HEADER } from '../shared/hop/hop-fields.ts';
import { type ObjectWarmed, parseWarmAsk } from '../shared/hop/warm-protocol.ts';
import { BadRequest } from '../shared/http/errors.ts';
import { RequestMeter } from '../shared/observe/request-meter.ts';
import { warmRead } from '../shared/tier/warm-read.ts';
import type { ShieldRequest } from './env.ts';
import { answerObject } from './shield-tier.ts';

/** What a warm's GET carries of the edge's call: the object's host, the edge's purge watermarks, Accept-Encoding. */
const CARRIED = [HOST_HEADER, PURGED_AT_HEADER, SOFT_PURGED_AT_HEADER, 'accept-encoding'] as const;

/** Longest ask the shield reads: a path of a URL's own length, in JSON. */
const ASK_LIMIT = 64 * 1024;

/**
 * One object to warm at the shield.
 * @public warmObject's ask: the shield's warming primitive, for whatever warms it (docs/warming.md)
 */
export interface ShieldWarmAsk {
  /** The object's canonical path and kept query, as the edge asks for it. */
  path: string;
  /**
   * The fields a read of it carries from the edge: HOST_HEADER (its bucket), the edge's purge watermarks (so that a
   * copy purged since is fetched again, never reported cached), and the Accept-Encoding a site's variant is chosen by.
   */
  headers: Headers;
}

/**
 * Reads `ask`'s object through the shield's read path, as a GET from the edge would, and says what it came to
 * (warmed, cached, failed, skipped). Its own meter counts what it fetched and holds what it left running, kept alive
 * by `shield`'s request; nobody waits for its first byte, so it yields to requests that do (first-byte-urgency.ts).
 * @public the shield's warming primitive: acceptWarm's, and whatever else warms the shield (docs/warming.md)
 */
export function warmObject(ask: ShieldWarmAsk, shield: ShieldRequest): Promise<ObjectWarmed> {
  const meter = new RequestMeter(Date.now(), (work) => shield.meter.hold(work));
  meter.readAhead = 'warm';
  const own: ShieldRequest = { ...shield, meter };
  const url = new URL(ask.path, SHIELD_ORIGIN);
  const read = (method: 'GET' | 'HEAD'): Promise<Response> =>
    answerObject(new Request(url, { method, headers: ask.headers }), own, {
      started: Date.now(),
      now: shield.clock.now(),
      url,
    });
  return warmRead({
    tier: 'shield',
    get: () => read('GET'),
    head: () => read('HEAD'),
    settled: () => meter.settled(),
    originBytes: () => meter.bytesFromOrigin,
  });
}

/**
 * POST WARM_PATH from the edge (shared/hop/warm-protocol.ts): `{"path": …}` warmed, answered with what it came to (a
 * 200 whatever it came to: the outcome says). Only the edge reaches this (shield-app.ts checks its credential).
 */
export async function acceptWarm(request: Request, shield: ShieldRequest): Promise<Response> {
  const text = await request.text();
  const ask = text.length > ASK_LIMIT ? undefined : parseWarmAsk(text);
  if (ask === undefined) throw new BadRequest('expected {"path": "/…"} from the edge');
  const headers = new Headers();
  for (const name of CARRIED) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const warmed = await warmObject({ path: ask.path, headers }, shield);
  return Response.json(warmed, { headers: { 'cache-control': 'no-store' } });
}
