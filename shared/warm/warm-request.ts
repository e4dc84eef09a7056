// What a warm request asks (docs/warming.md): URLs, and prefixes each expanded from a playlist or a list of names given
// with it (never by listing the bucket: which objects exist is the operator's to say), the tiers to warm and where in
// the list this call starts. Pure: the body's text in, the request or why not out.

import { excerpt, jsonObject, objectOf, type Parsed, stringList, written } from '../http/json-fields.ts';
import { type PlaylistKind, playlistKind } from './playlist-uris.ts';

/** Where a warm stores: the shield alone, or the shield and the edge of the location that takes the call. */
export type WarmTier = 'shield' | 'both';

/** A prefix and what it is expanded from: the URIs a playlist names under it, or names given relative to it. */
export type WarmPrefix =
  | { prefix: string; playlist: string; kind: PlaylistKind; names?: undefined }
  | { prefix: string; names: string[]; playlist?: undefined };

/** A warm request as accepted (values as the client sent them). */
export interface WarmRequest {
  urls: string[];
  prefixes: WarmPrefix[];
  tier: WarmTier;
  /** Where in the request's list (warm-list.ts) this call starts: the `next` of the call before, 0 at first. */
  from: number;
}

/** Most URLs one request may name or expand to, playlists' included: a warm of more is several requests. */
export const MAX_WARM_URLS = 10_000;
/** Prefixes one request may name (each playlist one read, and a master playlist one more per rendition). */
export const MAX_WARM_PREFIXES = 16;
/** Longest URL, path, prefix or name: a URL's own limit on Workers is 16 KB, and no object key needs this much. */
export const MAX_WARM_VALUE_LENGTH = 2048;
/** A request naming MAX_WARM_URLS values of 400 bytes each, in JSON, fits. */
export const WARM_BODY_LIMIT = 4 * 1024 * 1024;

const FIELDS = ['urls', 'prefixes', 'tier', 'from'] as const;
const PREFIX_FIELDS = ['prefix', 'playlist', 'names'] as const;
const TIERS: readonly WarmTier[] = ['shield', 'both'];

/** The body parsed, or why not (a message saying what was expected and what arrived). Never throws. */
export function parseWarmBody(text: string): { ok: true; request: WarmRequest } | { ok: false; reason: string } {
  const record = jsonObject(text, FIELDS, '{"urls": ["/path"]}');
  if (!record.ok) return record;
  const urls = stringList(record.value.urls, 'urls', MAX_WARM_VALUE_LENGTH);
  if (!urls.ok) return urls;
  const prefixes = prefixList(record.value.prefixes);
  if (!prefixes.ok) return prefixes;
  const tier = record.value.tier ?? 'shield';
  if (typeof tier !== 'string' || !(TIERS as readonly string[]).includes(tier))
    return { ok: false, reason: `expected "tier" to be "shield" or "both", got ${written(tier)}` };
  const from = record.value.from ?? 0;
  if (typeof from !== 'number' || !Number.isSafeInteger(from) || from < 0 || from > MAX_WARM_URLS)
    return {
      ok: false,
      reason: `expected "from" to be a whole number from 0 to ${MAX_WARM_URLS}, got ${written(from)}`,
    };
  const named = urls.value.length + prefixes.value.reduce((sum, prefix) => sum + (prefix.names?.length ?? 0), 0);
  if (named > MAX_WARM_URLS)
    return { ok: false, reason: `expected at most ${MAX_WARM_URLS} URLs and names in one request, got ${named}` };
  if (urls.value.length === 0 && prefixes.value.length === 0)
    return { ok: false, reason: 'expected at least one of "urls" or "prefixes"; got nothing to warm' };
  return { ok: true, request: { urls: urls.value, prefixes: prefixes.value, tier: tier as WarmTier, from } };
}

function prefixList(value: unknown): Parsed<WarmPrefix[]> {
  if (value === undefined) return { ok: true, value: [] };
  if (!Array.isArray(value)) return { ok: false, reason: `expected "prefixes" to be an array, got ${written(value)}` };
  if (value.length > MAX_WARM_PREFIXES)
    return { ok: false, reason: `expected at most ${MAX_WARM_PREFIXES} prefixes, got ${value.length}` };
  const prefixes: WarmPrefix[] = [];
  for (const item of value) {
    const parsed = onePrefix(item);
    if (!parsed.ok) return parsed;
    prefixes.push(parsed.value);
  }
  return { ok: true, value: prefixes };
}

/** `{"prefix": "/video/ep1/", "playlist": "…m3u8"}` or `{"prefix": "/img/", "names": ["a.png"]}`. */
function onePrefix(item: unknown): Parsed<WarmPrefix> {
  const record = objectOf(item, 'each of "prefixes" to be an object', PREFIX_FIELDS);
  if (!record.ok) return record;
  const { prefix, playlist, names } = record.value;
  if (typeof prefix !== 'string' || !prefix.startsWith('/') || prefix.length > MAX_WARM_VALUE_LENGTH)
    return { ok: false, reason: `expected each "prefix" to be a path starting with "/", got ${written(prefix)}` };
  if ((playlist === undefined) === (names === undefined))
    return {
      ok: false,
      reason: `expected the prefix ${excerpt(prefix)} to come with a "playlist" or with "names" (one of them): the bucket is never listed`,
    };
  if (playlist !== undefined) {
    if (typeof playlist !== 'string' || playlist === '' || playlist.length > MAX_WARM_VALUE_LENGTH)
      return { ok: false, reason: `expected "playlist" to be a path or URL, got ${written(playlist)}` };
    const kind = playlistKind(pathOf(playlist));
    if (kind === undefined)
      return {
        ok: false,
        reason: `expected "playlist" to name an HLS (.m3u8) or DASH (.mpd) playlist, got ${excerpt(playlist)}`,
      };
    return { ok: true, value: { prefix, playlist, kind } };
  }
  const list = stringList(names, 'names', MAX_WARM_VALUE_LENGTH);
  if (!list.ok) return list;
  const absolute = list.value.find((name) => name.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(name));
  if (absolute !== undefined)
    return { ok: false, reason: `expected "names" relative to their prefix (like "a.png"), got ${excerpt(absolute)}` };
  return { ok: true, value: { prefix, names: list.value } };
}

/** A URL's or path's path, without its query or fragment. */
function pathOf(value: string): string {
  const path = value.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  return path.split(/[?#]/, 1)[0] ?? '';
}
