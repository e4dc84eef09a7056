// The edge's purge, told to the shield (README "Purge"): this isolate learns the records at
// once (others re-read the global list within its bound), and the shield's entries for the
// URLs named are deleted. Only the edge reaches this (index.ts checks its credential).

import type { Config } from '../shared/config/config.ts';
import { BadRequest } from '../shared/http/errors.ts';
import { SHIELD_ORIGIN } from '../shared/target/internal.ts';
import { type PurgeRecord, asRecord } from '../shared/purge/purge.ts';
import { rememberPurges } from '../shared/purge/purge-store.ts';
import { requestTarget } from '../shared/target/request-target.ts';
import { remove } from '../shared/tier/tier-cache.ts';
import { shieldCache, shieldKey } from './shield-cache.ts';

/** `clockOffset` (ms): the test clock's lead; the list is kept on the clock entries are timed by. */
export async function acceptPurge(request: Request, config: Config, clockOffset = 0): Promise<Response> {
  const records = await readRecords(request);
  rememberPurges(records, Date.now() + clockOffset);
  const cache = await shieldCache();
  const urls = records.filter((record) => record.kind === 'url');
  // The edge sent canonical paths; re-derived here exactly as a request for them would be.
  await Promise.all(urls.map((record) => remove(cache, shieldKey(config, requestTarget(new URL(record.value, SHIELD_ORIGIN), config.originKind))).catch(() => false)));
  return new Response(null, { status: 204 });
}

async function readRecords(request: Request): Promise<PurgeRecord[]> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new BadRequest('expected {"records": [...]} from the edge, got a body that is not JSON');
  }
  const list = typeof body === 'object' && body !== null ? (body as { records?: unknown }).records : undefined;
  if (!Array.isArray(list)) throw new BadRequest('expected {"records": [...]} from the edge');
  return list.map(asRecord).filter((record) => record !== undefined);
}
