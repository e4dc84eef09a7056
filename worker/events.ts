// POST /__tiercache/events (docs/storj.md "Purge on upload"): Storj's bucket events, pushed by Google Pub/Sub, become
// purges taken as the purge API takes them (purge.ts applyPurge): an uploaded object revalidated (a soft purge), a
// removed one gone (a hard purge). Each message applied once: its id is remembered in the PURGES namespace.

import { eventsAdmission } from '../shared/admission/tier-credentials.ts';
import { BadRequest, ConfigError, Forbidden, HttpError, Unauthorized } from '../shared/http/errors.ts';
import { EVENTS_BODY_LIMIT, eventPurges, parsePush } from '../shared/purge/bucket-events.ts';
import type { PurgeRecord } from '../shared/purge/purge-rules.ts';
import type { EdgeRequest } from './env.ts';
import { applyPurge, type PurgedUrl, purgedUrl, readBody } from './purge.ts';

/** Where a message applied is remembered: beside the purge list, outside its `purge:` keys (no list meets it). */
const SEEN_PREFIX = 'event-seen:';
/**
 * How long a message id is remembered: Pub/Sub's default message retention, seven days, as long as it redelivers an
 * unacknowledged message by default (cloud.google.com/pubsub/docs/subscription-properties).
 */
const SEEN_TTL_S = 7 * 24 * 3600;

/**
 * Admits the push (EVENTS_TOKEN, in the URL's `token` or as a bearer; nothing is read before), reads it, and, unless
 * its message was applied before, purges what its events name and remembers the message. 200 once the records are
 * written, so Pub/Sub stops redelivering; a duplicate (Pub/Sub's redelivery, or a replay) is answered 200 too, with
 * `duplicate: true` and nothing recorded; 503 when KV or the shield did not take the records, so Pub/Sub tries again.
 */
export async function bucketEvents(
  request: Request,
  edge: EdgeRequest,
  waitUntil: (work: Promise<unknown>) => void = () => undefined,
): Promise<Response> {
  const { config } = edge;
  const url = new URL(request.url);
  const admission = eventsAdmission(
    url.searchParams.get('token'),
    request.headers.get('authorization'),
    config.eventsToken,
  );
  if (admission === 'disabled')
    throw new Forbidden('bucket events are disabled: set the EVENTS_TOKEN secret to enable them');
  // RFC 6750 §3: a request without valid credentials is answered 401 with WWW-Authenticate.
  if (admission === 'unauthorized')
    throw new Unauthorized(
      'bucket events need ?token=<EVENTS_TOKEN> or Authorization: Bearer <EVENTS_TOKEN>',
      'Bearer realm="tiercache events"',
    );
  const kv = edge.purges;
  if (kv === undefined) throw new ConfigError('bucket events need the PURGES KV namespace binding');
  const s3 = config.s3;
  if (s3 === undefined) throw new Forbidden('bucket events purge objects of an S3 origin: ORIGIN_KIND is not s3');
  const parsed = parsePush(await readBody(request, EVENTS_BODY_LIMIT));
  if (!parsed.ok) throw new BadRequest(parsed.reason);
  const { push } = parsed;
  const seenKey = `${SEEN_PREFIX}${push.messageId}`;
  const answer = (body: Record<string, unknown>): Response =>
    Response.json({ messageId: push.messageId, ...body }, { headers: { 'cache-control': 'no-store' } });
  // Applied before (Pub/Sub redelivers at least once; a replay is the same bytes): acknowledged, nothing recorded.
  const seen = await kv.get(seenKey);
  if (seen !== null) return answer({ duplicate: true, recorded: 0, appliedAt: appliedAt(seen) });
  // A URL record matches its path on every host: the host only picks where this location's entry is deleted.
  const named = eventPurges(push.events, (bucket) => {
    for (const [host, read] of s3.hostBuckets) if (read === bucket) return host;
    return bucket === s3.bucket ? url.hostname : undefined;
  });
  const { purges } = named;
  const ignored = [...push.ignored, ...named.ignored];
  const urls: PurgedUrl[] = [];
  const soft: boolean[] = [];
  for (const purge of purges) {
    try {
      urls.push(purgedUrl(new URL(purge.url), config));
      soft.push(purge.soft);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      ignored.push(`${purge.url} names no object: ${error.message}`);
    }
  }
  // On the clock entries are timed by: every byte fetched before the push arrived is covered, whatever the skew
  // between Storj's clock (eventTime) and this one (docs/storj.md "Order and duplicates").
  const at = edge.clock.now();
  const records = urls.map(({ target }, i): PurgeRecord => {
    const record: PurgeRecord = { kind: 'url', value: `${target.path}${target.query}`, at };
    return soft[i] === true ? { ...record, soft: true } : record;
  });
  const applied = records.length === 0 ? undefined : await applyPurge(records, at, urls, request, edge, waitUntil);
  // Remembered once recorded; a failure here only lets a redelivery purge once more (a revalidation or a refetch).
  await kv
    .put(seenKey, JSON.stringify({ at }), { expirationTtl: SEEN_TTL_S })
    .catch((error: unknown) => console.error('events: the message was applied but could not be remembered', error));
  return answer({
    duplicate: false,
    recorded: records.length,
    events: push.events.map(({ kind, name, bucket, keys }) => ({ kind, name, bucket, key: keys[0] })),
    purged: records.map(({ value, soft: isSoft }) => ({ url: value, soft: isSoft === true })),
    ignored,
    at,
    ...(applied ?? {}),
  });
}

/** When a remembered message was applied (ms epoch), if its mark says. */
function appliedAt(mark: string): number | undefined {
  try {
    const { at } = JSON.parse(mark) as { at?: unknown };
    return typeof at === 'number' ? at : undefined;
  } catch {
    return undefined;
  }
}
