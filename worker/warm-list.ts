// What a warm request's list is (docs/warming.md "The list"): its URLs, then each prefix's expansion (the playlist,
// the URIs it names under the prefix, the playlists it names read in turn; or the names given with it), each object
// once, in that order, so that every call of one warm expands the same list and `from` means the same place in it.
// Playlists are read through the tiers being warmed (stored there as any GET's object is), never the bucket listed.

import type { Config } from '../shared/config/config.ts';
import type { ObjectWarmed } from '../shared/hop/warm-protocol.ts';
import { BadRequest, HttpError } from '../shared/http/errors.ts';
import { concatBytes } from '../shared/streams/bytes.ts';
import { type PlaylistKind, playlistKind, playlistUris } from '../shared/warm/playlist-uris.ts';
import { MAX_PLAYLISTS, playlistCost, type WarmLedger } from '../shared/warm/warm-pacing.ts';
import { MAX_WARM_URLS, type WarmPrefix, type WarmRequest } from '../shared/warm/warm-request.ts';
import { outOfScope, type WarmScope, warmUrl } from '../shared/warm/warm-scope.ts';
import { purgedUrl } from './purge.ts';

/** Longest playlist read: a media playlist of MAX_WARM_URLS segments is a few hundred kilobytes. */
const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024;

/** A target of the list: the URL warmed and the canonical path and query both tiers key it by. */
export interface ObjectTarget {
  kind: 'object';
  url: URL;
  /** What the shield is asked for, and what purge records match against (worker/edge-address.ts purgePath). */
  path: string;
}

/** A target settled while the list was made: skipped (out of scope, no URL), or a playlist that could not be read. */
interface SettledTarget {
  kind: 'settled';
  url: string;
  /** A skip's reason, or the playlist's failure at the tier it was read from. */
  settled: { skip: string } | { tier: 'shield' | 'edge'; failed: ObjectWarmed };
}

export type WarmTarget = ObjectTarget | SettledTarget;

/** How a playlist is read for its text: through the tier the warm reaches first (its answer, as any GET's). */
export type PlaylistRead = (target: ObjectTarget) => Promise<Response>;

/** The list, and how many playlists were read to make it. */
export interface WarmList {
  targets: WarmTarget[];
  playlists: number;
}

/**
 * The request's list. A URL or name given in the body that is outside the warm's scope, or names no object, is the
 * client's mistake: a 400 saying which. What a playlist names outside it is skipped, and said so in the report.
 */
export async function warmList(
  request: WarmRequest,
  scope: WarmScope,
  config: Config,
  read: { playlist: PlaylistRead; ledger: WarmLedger; tier: 'shield' | 'edge' },
): Promise<WarmList> {
  const list = new TargetList(config);
  for (const value of request.urls) list.given(value, scope.call, scope, undefined, '"urls"');
  let playlists = 0;
  for (const prefix of request.prefixes) {
    if (prefix.names !== undefined) {
      const base = warmUrl(prefix.prefix, scope.call) ?? scope.call;
      for (const name of prefix.names) list.given(name, base, scope, prefix.prefix, `the names of ${prefix.prefix}`);
    } else playlists += await expand(prefix, scope, list, read, MAX_PLAYLISTS - playlists);
  }
  return { targets: list.targets, playlists };
}

/** The targets collected, each object once (by host, canonical path and kept query), at most MAX_WARM_URLS. */
class TargetList {
  readonly targets: WarmTarget[] = [];
  private readonly seen = new Map<string, ObjectTarget>();
  private readonly config: Config;

  constructor(config: Config) {
    this.config = config;
  }

  /** A URL the body gives: refused with a 400 when it is out of scope or names no object. */
  given(value: string, base: URL, scope: WarmScope, prefix: string | undefined, where: string): ObjectTarget {
    const url = warmUrl(value, base);
    const reason = url === undefined ? 'no URL' : outOfScope(url, scope, prefix);
    if (url === undefined || reason !== undefined)
      throw new BadRequest(
        `expected each of ${where} to name an object of this deployment, got ${quoted(value)}: ${reason}`,
      );
    const target = this.object(url);
    if (target instanceof HttpError)
      throw new BadRequest(`expected each of ${where} to name an object, got ${quoted(value)}: ${target.message}`);
    return this.add(target).listed;
  }

  /** A URL a playlist names: skipped (and said so) when it is out of scope or names no object. */
  named(href: string, scope: WarmScope, prefix: string): ObjectTarget | undefined {
    const url = new URL(href);
    const reason = outOfScope(url, scope, prefix);
    const target = reason === undefined ? this.object(url) : undefined;
    if (target === undefined || target instanceof HttpError) {
      this.settle(href, { skip: reason ?? `names no object: ${target?.message}` });
      return undefined;
    }
    const { listed, added } = this.add(target);
    return added ? listed : undefined;
  }

  settle(url: string, settled: SettledTarget['settled']): void {
    this.count();
    this.targets.push({ kind: 'settled', url: url.slice(0, 500), settled });
  }

  /** `target`, listed already, settled in its place (a playlist that could not be read is not warmed again). */
  settleListed(target: ObjectTarget, settled: SettledTarget['settled']): void {
    const at = this.targets.indexOf(target);
    if (at >= 0) this.targets[at] = { kind: 'settled', url: target.url.href.slice(0, 500), settled };
  }

  /** Adds `target` unless the object is listed already: the target listed for it, and whether it is this one. */
  private add(target: ObjectTarget): { listed: ObjectTarget; added: boolean } {
    const key = `${target.url.host} ${target.path}`;
    const listed = this.seen.get(key);
    if (listed !== undefined) return { listed, added: false };
    this.count();
    this.seen.set(key, target);
    this.targets.push(target);
    return { listed: target, added: true };
  }

  private object(url: URL): ObjectTarget | HttpError {
    try {
      const { target } = purgedUrl(url, this.config);
      return { kind: 'object', url, path: `${target.path}${target.query}` };
    } catch (error) {
      if (error instanceof HttpError) return error;
      throw error;
    }
  }

  private count(): void {
    if (this.targets.length >= MAX_WARM_URLS)
      throw new BadRequest(`expected at most ${MAX_WARM_URLS} URLs in one warm; this request names or expands to more`);
  }
}

/**
 * A playlist prefix's targets: the playlist, what it names under the prefix, then each playlist it names, read in turn
 * (at most `room` playlists, each paid for from the call's budget). Answers how many it read.
 */
async function expand(
  prefix: WarmPrefix & { playlist: string },
  scope: WarmScope,
  list: TargetList,
  read: { playlist: PlaylistRead; ledger: WarmLedger; tier: 'shield' | 'edge' },
  room: number,
): Promise<number> {
  const base = warmUrl(prefix.prefix, scope.call) ?? scope.call;
  const queue: { target: ObjectTarget; kind: PlaylistKind }[] = [
    { target: list.given(prefix.playlist, base, scope, undefined, '"playlist"'), kind: prefix.kind },
  ];
  let count = 0;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (count >= room)
      throw new BadRequest(
        `expected at most ${MAX_PLAYLISTS} playlists read in one warm; ${prefix.playlist} names more`,
      );
    if (!read.ledger.charge(playlistCost(read.tier === 'edge' ? 'both' : 'shield')))
      throw new BadRequest(
        `reading the playlists needs more subrequests than one call may spend (${read.ledger.subrequests}, of SUBREQUEST_LIMIT): name fewer prefixes a request`,
      );
    count++;
    const text = await playlistText(read.playlist, next.target);
    if (typeof text !== 'string') {
      list.settleListed(next.target, { tier: read.tier, failed: text });
      continue;
    }
    const found = playlistUris(text, next.kind, next.target.url, MAX_WARM_URLS);
    if ('error' in found) {
      list.settleListed(next.target, { tier: read.tier, failed: failure(200, found.error) });
      continue;
    }
    for (const href of found.media) list.named(href, scope, prefix.prefix);
    for (const reference of found.unreadable) list.settle(reference, { skip: 'names no URL' });
    for (const href of found.playlists) {
      const target = list.named(href, scope, prefix.prefix);
      // A playlist a master names is of the master's kind, whatever its name says.
      if (target !== undefined) queue.push({ target, kind: playlistKind(target.url.pathname) ?? next.kind });
    }
  }
  return count;
}

/** A playlist's text as the tier answered it (decoded when stored encoded), or why it could not be read. */
async function playlistText(read: PlaylistRead, target: ObjectTarget): Promise<string | ObjectWarmed> {
  let response: Response;
  try {
    response = await read(target);
  } catch (error) {
    return failure(
      error instanceof HttpError ? error.status : 502,
      error instanceof Error ? error.message : 'unreadable',
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return failure(response.status, `the playlist could not be read: answered ${response.status}`);
  }
  const coding = (response.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  let body = response.body;
  if (coding === 'gzip' || coding === 'deflate') body = body?.pipeThrough(new DecompressionStream(coding)) ?? null;
  else if (coding !== 'identity') {
    await body?.cancel().catch(() => undefined);
    return failure(200, `the playlist is stored with Content-Encoding ${coding}, which a warm does not read`);
  }
  const bytes = await boundedBytes(body, MAX_PLAYLIST_BYTES);
  return bytes instanceof Uint8Array ? new TextDecoder().decode(bytes) : failure(200, bytes.error);
}

/** The whole body; past `limit` bytes, or broken part-way, why not (a playlist read in part names a part). */
async function boundedBytes(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | { error: string }> {
  if (body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return concatBytes(chunks);
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return { error: `the playlist is longer than ${limit} bytes` };
      }
      chunks.push(value);
    }
  } catch (error) {
    return {
      error: `the playlist's body broke after ${size} bytes: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function failure(status: number, reason: string): ObjectWarmed {
  return { outcome: 'failed', status, bytes: 0, originBytes: 0, reason };
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
