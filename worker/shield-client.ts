// The edge's next hop: the shield, over its service binding or at SHIELD_URL (shield-transport.ts), as the NextHop
// every tier's flows take (shieldHop). GETs go as slice requests (shared/hop/slice-protocol.ts) and every answer is
// checked like an origin's (shield-answer.ts); a bypassed GET or HEAD and other methods go as they came (shieldCalls,
// for shared/tier/bypass.ts and pass-through.ts); a purge is the shield's to confirm; its health, its own answer; a
// warm, one object a call (warmAtShield), and a playlist read whole to warm what it names (readAtShield).

import type { Config } from '../shared/config/config.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import {
  CREDENTIAL_HEADER,
  HOST_HEADER,
  PURGED_AT_HEADER,
  REVALIDATE_HEADER,
  SOFT_PURGED_AT_HEADER,
} from '../shared/hop/hop-fields.ts';
import { parseWarmWord, SPAN_HEADER, sliceRequestPath } from '../shared/hop/slice-protocol.ts';
import { type ObjectWarmed, parseObjectWarmed, type WarmAsk, warmAskBody } from '../shared/hop/warm-protocol.ts';
import { ClientGone, Disconnected, HttpError, PurgeNotConfirmed } from '../shared/http/errors.ts';
import { forwardedRequestHeaders, TIER_MANAGED, withForwarding } from '../shared/http/headers.ts';
import { HEALTH_PROBE_MS, readShieldHealth, type ShieldHealth } from '../shared/http/health-report.ts';
import { resendable, withResend } from '../shared/http/resend.ts';
import { reselecting } from '../shared/http/vary.ts';
import { COPY_HEADER } from '../shared/observe/read-ahead-copy.ts';
import { shieldFetchedFromOrigin } from '../shared/observe/request-meter.ts';
import type { RequestTarget } from '../shared/request/request-target.ts';
import { HEALTH_PATH, PURGE_PATH, WARM_PATH } from '../shared/request/reserved-paths.ts';
import type { ObjectMeta } from '../shared/slices/object-meta.ts';
import { shieldHealing } from '../shared/tier/healing-upstream.ts';
import type { HopLog } from '../shared/tier/hop-log.ts';
import type { NextHop, PurgeWatermarks } from '../shared/tier/next-hop.ts';
import type { HopCalls, Upstream } from '../shared/tier/ports.ts';
import { cacheName } from '../shared/tier/tier-headers.ts';
import { readShieldAnswer } from './shield-answer.ts';
import type { ShieldTransport } from './shield-transport.ts';

interface ShieldCall {
  method: string;
  /** Path and query as the shield should see them. */
  path: string;
  headers?: Headers;
  body?: ReadableStream | null;
  /** The client's request: aborting it cancels this call too. */
  signal?: AbortSignal | undefined;
}

/**
 * The client's end-to-end request headers as the origin should get them (the tiers set Range
 * and the conditions themselves on GET and HEAD), with the edge's forwarding fields added.
 */
export function forwardedFor(request: Request, url: URL, managed: readonly string[] = TIER_MANAGED): Headers {
  return withForwarding(forwardedRequestHeaders(request.headers, managed), {
    host: url.host,
    proto: url.protocol.replace(/:$/, ''),
    ip: request.headers.get('cf-connecting-ip') ?? undefined,
  });
}

async function askShield(shield: ShieldTransport, config: Config, call: ShieldCall): Promise<Response> {
  const headers = new Headers(call.headers);
  if (config.shieldToken !== undefined) headers.set(CREDENTIAL_HEADER, config.shieldToken);
  // Bodies as the shield sent them: an encoded object stays its encoded bytes (never decoded here).
  const init: RequestInit = { method: call.method, headers, redirect: 'manual', encodeResponseBody: 'manual' };
  if (call.body) init.body = call.body;
  if (call.signal) init.signal = call.signal;
  try {
    // The URL and init given to fetch itself: encodeResponseBody does not travel inside a Request. Sent once more if
    // its connection failed before any answer and nothing is lost by it (shared/http/resend.ts).
    return await withResend(
      () => shield.fetch(call.path, init),
      resendable(call.method, call.body),
      () => call.signal?.aborted === true,
    );
  } catch {
    // Given up on because the client went away: the shield was reached, nobody is left to answer.
    if (call.signal?.aborted === true) throw new ClientGone();
    throw new Disconnected('shield-unreachable', 'the shield tier could not be reached');
  }
}

/**
 * The shield as this request's next hop; `host` is the client's, which picks the shield's
 * bucket. `watermarks` answer the newest purge and the newest soft purge the edge applied to this object, if any;
 * `client` are the client's end-to-end headers, for an HTTP origin (worker/index.ts): without them, nothing the
 * client sent is copied. `hops` hears the head of each warm's answer, the shield's verdict on the slice, which comes
 * long before the warm ends (shared/tier/hop-log.ts; the other answers it hears through loggedUpstream).
 */
function shieldUpstream(
  shield: ShieldTransport,
  config: Config,
  target: RequestTarget,
  host: string,
  watermarks: PurgeWatermarks = {},
  client?: Headers,
  hops?: HopLog,
): Upstream {
  const { sliceSize } = config.slicing;
  const hopHeaders = (pinned?: ObjectMeta): Headers => {
    // The client's end-to-end headers (a site's; none for S3), then ours: theirs never carry our names. Pinned to a
    // version, they select its representation again (vary.ts), whichever the shield would choose for the client's.
    const headers = new Headers(pinned === undefined ? client : reselecting(client, pinned.headers));
    headers.set(HOST_HEADER, host);
    // Whole ms, as the shield reads them (a floor of the purge list may be any number): rounded up, they purge no less.
    const at = watermarks.purgedAt?.();
    if (at !== undefined) headers.set(PURGED_AT_HEADER, String(Math.ceil(at)));
    const softAt = watermarks.softPurgedAt?.();
    if (softAt !== undefined) headers.set(SOFT_PURGED_AT_HEADER, String(Math.ceil(softAt)));
    return headers;
  };
  return {
    async slices(span, pinned, { validators, from = 0, signal, copy } = {}) {
      const path = sliceRequestPath({ span, sliceSize, etag: pinned?.etag, from }, target.path) + target.query;
      const headers = hopHeaders(pinned);
      // The copy of a slice a warm stored: the shield counts it with that warm.
      if (copy === true) headers.set(COPY_HEADER, '1');
      if (validators !== undefined) {
        // The edge revalidates what it holds: the shield must not answer from a stale copy of its own.
        headers.set(REVALIDATE_HEADER, '1');
        if (validators.etag) headers.set('if-none-match', validators.etag);
        if (validators.lastModified) headers.set('if-modified-since', validators.lastModified);
      }
      const response = await askShield(shield, config, { method: 'GET', path, headers, signal });
      if (response.status === 304 && validators !== undefined) return { kind: 'not-modified', response };
      return readShieldAnswer(response, span, pinned, sliceSize, from);
    },
    head: (signal) =>
      askShield(shield, config, { method: 'HEAD', path: target.path + target.query, headers: hopHeaders(), signal }),
    async warm(span, pinned, signal) {
      const path = sliceRequestPath({ span, sliceSize, etag: pinned.etag, warm: true }, target.path) + target.query;
      const response = await askShield(shield, config, { method: 'GET', path, headers: hopHeaders(pinned), signal });
      // Anything but the shield's warm answer for this span (a 412: the version is gone) stores nothing.
      if (response.status !== 200 || response.headers.get(SPAN_HEADER) !== `${span.first}-${span.last}`) {
        await response.body?.cancel();
        return undefined;
      }
      hops?.heard(span, response.headers, true);
      return parseWarmWord(await response.text());
    },
  };
}

/**
 * The shield as the next hop of what the edge forwards as it came. A bypassed GET or HEAD: to a site with every
 * end-to-end header the client sent (its Range and conditions too: nothing is stored to answer them from); to S3 with
 * only the Range and conditions, which the shield signs into the object's GET or HEAD. Another method: with every
 * end-to-end header (none is managed by the tiers on an unsafe method) and its body.
 */
function shieldCalls(shield: ShieldTransport, config: Config): HopCalls {
  return {
    bypass: ({ request, url, target }) =>
      askShield(shield, config, {
        method: request.method,
        path: target.path + target.query,
        headers: bypassHeaders(request, url, config),
        signal: request.signal,
      }),
    passThrough: ({ request, url, target }) =>
      askShield(shield, config, {
        method: request.method,
        path: target.path + target.query,
        headers: forwardedFor(request, url, []),
        body: request.body,
      }),
  };
}

function bypassHeaders(request: Request, url: URL, config: Config): Headers {
  const headers = originTraits(config).forwardsClientHeaders ? forwardedFor(request, url, []) : tierManaged(request);
  headers.set(HOST_HEADER, url.hostname);
  return headers;
}

/** The Range and conditions alone: what the shield signs into an S3 object's GET or HEAD. */
function tierManaged(request: Request): Headers {
  const headers = new Headers();
  for (const name of TIER_MANAGED) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

/** A shield slower than this counts as not answering: its probe's longest wait, and time for the hop. */
const SHIELD_WAIT_MS = HEALTH_PROBE_MS + 2_000;

/** What the edge heard of the shield when it asked how it is. */
type ShieldState = 'ok' | 'unreachable' | 'timeout' | `error ${number}`;

/** The shield's state, and its health answer when it gave one (a 503 with a finding is an answer). */
export interface ShieldFound {
  shield: ShieldState;
  health: ShieldHealth | undefined;
}

/**
 * The shield as the edge's next hop (shared/tier/next-hop.ts): its member is the shield's, its bodies heal past the
 * shield's own attempts (shieldHealing), an answer came from the origin where its member says no hit.
 */
export function shieldHop(shield: ShieldTransport, config: Config): NextHop<ShieldFound> {
  return {
    ...shieldCalls(shield, config),
    member: cacheName('shield'),
    object: ({ target, host, watermarks, client, hops }) =>
      shieldUpstream(shield, config, target, host, watermarks, client, hops),
    healing: shieldHealing(config.originIdleTimeoutMs),
    fromOrigin: shieldFetchedFromOrigin,
    async purge(records) {
      const answer = await askShield(shield, config, {
        method: 'POST',
        path: PURGE_PATH,
        headers: new Headers({ 'content-type': 'application/json' }),
        body: new Response(JSON.stringify({ records })).body,
      });
      // The global record reaches the shield's own cache within its bound, but not the Workers Cache in front of it
      // (docs/deploying.md "Purge reaches every layer"): only the shield purges that. So a shield that did not
      // confirm is this purge's failure, recorded and safe to ask again.
      const said = answer.ok ? '' : (await answer.text()).trim().slice(0, 500);
      if (!answer.ok)
        throw new PurgeNotConfirmed(`the shield answered ${answer.status} (${said || 'no reason given'})`);
      await answer.body?.cancel();
    },
    async health() {
      const started = Date.now();
      try {
        const answer = await askShield(shield, config, {
          method: 'GET',
          path: HEALTH_PATH,
          signal: AbortSignal.timeout(SHIELD_WAIT_MS),
        });
        const health = readShieldHealth(await answer.json().catch(() => undefined));
        return { shield: health !== undefined ? 'ok' : `error ${answer.status}`, health };
      } catch {
        return { shield: Date.now() - started >= SHIELD_WAIT_MS ? 'timeout' : 'unreachable', health: undefined };
      }
    },
  };
}

/**
 * The shield warming one object through its read path (POST WARM_PATH: shared/hop/warm-protocol.ts), `headers` the
 * fields a read of it carries (its host, the edge's purge watermarks); what it came to, never a rejection: a shield
 * that cannot be reached, or answers anything but its report, is the object's failure.
 */
export async function warmAtShield(
  shield: ShieldTransport,
  config: Config,
  ask: WarmAsk,
  headers: Headers,
): Promise<ObjectWarmed> {
  const failed = (status: number, reason: string): ObjectWarmed => ({
    outcome: 'failed',
    status,
    bytes: 0,
    originBytes: 0,
    reason,
  });
  try {
    const call = new Headers(headers);
    call.set('content-type', 'application/json');
    const answer = await askShield(shield, config, {
      method: 'POST',
      path: WARM_PATH,
      headers: call,
      body: new Response(warmAskBody(ask)).body,
    });
    const text = (await answer.text()).slice(0, 4096);
    if (!answer.ok) return failed(answer.status, `the shield answered ${answer.status}: ${text.trim().slice(0, 200)}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return parseObjectWarmed(json) ?? failed(502, 'the shield answered something that is not a warm report');
  } catch (error) {
    return failed(
      error instanceof HttpError ? error.status : 502,
      error instanceof Error ? error.message : String(error),
    );
  }
}

/**
 * A plain GET of an object at the shield, `headers` those a read of it carries: the whole of it through the shield's
 * read path (a playlist read to warm what it names, stored at the shield as any GET's object is).
 */
export function readAtShield(
  shield: ShieldTransport,
  config: Config,
  path: string,
  headers: Headers,
): Promise<Response> {
  return askShield(shield, config, { method: 'GET', path, headers });
}
