// Warming a tier with one object: a GET through the tier's own read path (its slicing, its checks of every byte, its
// fill, its purge and freshness rules: never a fetch of its own beside them), the answer's body drained and counted as
// it passes, never held; then what the tier did with it, read from its Cache-Status member (RFC 9211). Written once
// for every tier: the shield's warm (shield/warm-object.ts, which its prefetching can call too) and the edge's
// (worker/warm-tiers.ts) hand it their read.

import type { ObjectWarmed } from '../hop/warm-protocol.ts';
import { type CacheStatusParams, memberParams } from '../http/cache-status.ts';
import { HttpError } from '../http/errors.ts';
import { drain } from '../streams/drain.ts';
import { type TierName, tier } from '../tiers/tiers.ts';

const BYPASSED = 'a rule bypasses the cache for it';

/** A tier's read of one object, as a warm needs it. */
export interface WarmReadParts {
  tier: TierName;
  /** The tier's GET of the object: its read path's answer (rejecting with the HttpError a client would get). */
  get(): Promise<Response>;
  /** The tier's HEAD of it, asked once the GET's work has settled: a hit says it is stored now. */
  head(): Promise<Response>;
  /** Resolves once the work the GET left running (its fills, its stores) has settled. */
  settled(): Promise<void>;
  /** Body bytes the read fetched from the origin, as its meter counted them (read once settled). */
  originBytes(): number;
}

/**
 * Reads the object through the tier to store it there: `cached` when the tier held all of it (its body not read),
 * `warmed` when the read stored it (its body drained to the end, the stores settled, and a HEAD after it a hit unless
 * the member said `stored`), `skipped` when a rule bypasses the cache for it, `failed` otherwise, saying why. Never
 * rejects.
 */
export async function warmRead(parts: WarmReadParts): Promise<ObjectWarmed> {
  const member = tier(parts.tier).statusMember;
  let response: Response;
  try {
    response = await parts.get();
  } catch (error) {
    return failed(error instanceof HttpError ? error.status : 0, reasonOf(error));
  }
  const params = memberParams(response.headers.get('cache-status'), member) ?? {};
  const size = declaredLength(response.headers);
  if (params.fwd === 'bypass' || response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    if (params.fwd === 'bypass')
      return { outcome: 'skipped', status: response.status, bytes: 0, originBytes: 0, reason: BYPASSED };
    return failed(response.status, `answered ${response.status}${detail(params)}`);
  }
  if (params.hit === true && !partly(params)) {
    await response.body?.cancel().catch(() => undefined);
    return { outcome: 'cached', status: 200, ...(size === undefined ? {} : { size }), bytes: 0, originBytes: 0 };
  }
  const drained = await drain(response.body);
  await parts.settled();
  const originBytes = parts.originBytes();
  const read = { status: 200, size: size ?? drained.bytes, bytes: drained.bytes, originBytes };
  if (drained.error !== undefined)
    return {
      ...read,
      outcome: 'failed',
      reason: `the body broke after ${drained.bytes} bytes: ${drained.error.message}`,
    };
  if (size !== undefined && drained.bytes !== size)
    return { ...read, outcome: 'failed', reason: `the body held ${drained.bytes} of its ${size} bytes` };
  if (params.hit === true) return { ...read, outcome: originBytes === 0 ? 'cached' : 'warmed' };
  if (params.stored === true || (await storedNow(parts, member))) return { ...read, outcome: 'warmed' };
  return {
    ...read,
    outcome: 'failed',
    reason: `not kept by the ${parts.tier}: its answer may not be stored, or is stale at once (RFC 9111 §3, §4.2)`,
  };
}

/** Whether a HEAD of the object now hits at the tier. */
async function storedNow(parts: WarmReadParts, member: string): Promise<boolean> {
  try {
    const head = await parts.head();
    await head.body?.cancel().catch(() => undefined);
    return head.status === 200 && memberParams(head.headers.get('cache-status'), member)?.hit === true;
  } catch {
    return false;
  }
}

/** A sliced object's hit whose later slices were not looked up yet (`slices 1/1 of 4`): reading it stores the rest. */
function partly(params: CacheStatusParams): boolean {
  return params.detail !== undefined && /\bslices \d+\/\d+ of \d+/.test(params.detail);
}

function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

function detail(params: CacheStatusParams): string {
  return params.detail === undefined ? '' : ` (${params.detail})`;
}

function failed(status: number, reason: string): ObjectWarmed {
  return { outcome: 'failed', status, bytes: 0, originBytes: 0, reason };
}

function reasonOf(error: unknown): string {
  if (error instanceof HttpError) return `answered ${error.status}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
