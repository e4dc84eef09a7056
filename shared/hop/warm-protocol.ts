// How the edge asks the shield to warm one object (POST WARM_PATH at the shield: shield/warm-object.ts) and what the
// shield answers it came to. One object a call, so that each warm is a shield invocation of its own, with its own
// subrequests and connections (docs/warming.md "Budget and pacing"); the object's host rides in HOST_HEADER and the
// edge's purge watermarks in their fields, as on every read the edge sends.

/** What became of one object read through a tier to warm it (shared/tier/warm-read.ts). */
type WarmOutcome = 'warmed' | 'cached' | 'failed' | 'skipped';

const OUTCOMES: ReadonlySet<string> = new Set<WarmOutcome>(['warmed', 'cached', 'failed', 'skipped']);

/** One object warmed at one tier. */
export interface ObjectWarmed {
  /**
   * `warmed`: fetched through the tier and stored there; `cached`: the tier held it already; `failed`: not stored
   * (an error, a body cut short, an answer the tier may not keep); `skipped`: a rule bypasses the cache for it.
   */
  outcome: WarmOutcome;
  /** The status the tier's read answered; 0 when there was no answer (the tier not reached). */
  status: number;
  /** The object's length, where known: its Content-Length, or the bytes its body held. */
  size?: number;
  /** Body bytes read through the tier to store it (drained, never held); 0 for a copy found whole and not read. */
  bytes: number;
  /** Body bytes fetched from the origin for it (at the shield: its own fetches; at the edge: what the shield did). */
  originBytes: number;
  /** Why it failed or was skipped, in a sentence. */
  reason?: string;
}

/** The edge's ask: the object's canonical path and kept query, as a GET of it is keyed (its host in HOST_HEADER). */
export interface WarmAsk {
  path: string;
}

/** Longest path the shield takes: a URL's own limit on Workers (16 KB). */
const MAX_PATH = 16 * 1024;

/** The ask as the edge sends it. */
export function warmAskBody(ask: WarmAsk): string {
  return JSON.stringify({ path: ask.path });
}

/** The edge's ask read, or undefined when it is not one (the shield answers that 400). */
export function parseWarmAsk(text: string): WarmAsk | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const path = typeof body === 'object' && body !== null ? (body as { path?: unknown }).path : undefined;
  if (typeof path !== 'string' || !path.startsWith('/') || path.length > MAX_PATH) return undefined;
  return { path };
}

/** The shield's answer read, or undefined when it is not one (an older shield's 404, say). */
export function parseObjectWarmed(value: unknown): ObjectWarmed | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.outcome !== 'string' || !OUTCOMES.has(v.outcome)) return undefined;
  if (!count(v.status) || !count(v.bytes) || !count(v.originBytes)) return undefined;
  if (v.size !== undefined && !count(v.size)) return undefined;
  if (v.reason !== undefined && typeof v.reason !== 'string') return undefined;
  return {
    outcome: v.outcome as WarmOutcome,
    status: v.status,
    bytes: v.bytes,
    originBytes: v.originBytes,
    ...(typeof v.size === 'number' ? { size: v.size } : {}),
    ...(typeof v.reason === 'string' ? { reason: v.reason.slice(0, 300) } : {}),
  };
}

function count(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
