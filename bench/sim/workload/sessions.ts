// What one client does at a location, as the trace's requests: a page load (the page, then its assets and images),
// a progressive video (a player opens `bytes=0-`, reads the header and cuts, seeks, then plays to the end), an HLS
// viewer (the playlist, then a segment every segment's duration, sometimes switching bitrate) and a downloader (a
// whole GET cut short, then the reconnect that asks for the rest with a Range, as curl -C - and browsers do).

import { type Catalogue, HLS_SEGMENT_SECONDS } from './catalogue.ts';
import { chance, exponential, integerBetween, pick, type Random } from './random.ts';
import type { TraceObject, TraceRequest } from './trace.ts';
import type { RankSampler } from './zipf.ts';

/** Zipf samplers over each list of the catalogue (the same α). */
export interface Popularity {
  pages: RankSampler;
  assets: RankSampler;
  images: RankSampler;
  videos: RankSampler;
  hls: RankSampler;
}

export type SessionKind = 'page' | 'video' | 'hls' | 'download';
/** Who the clients are: each session's kind drawn with these weights (they sum to 1). */
export type SessionMix = Readonly<Record<SessionKind, number>>;

/** The default run's clients: a CDN's mix of page loads, players and downloads. */
export const SESSION_MIX: SessionMix = { page: 0.55, video: 0.15, hls: 0.2, download: 0.1 };
/**
 * `--hls`'s clients: HLS viewers for the most part (what segment prefetching is measured on), with page loads beside
 * them so that the shield also serves what no playlist names.
 */
export const HLS_VIEWERS_MIX: SessionMix = { page: 0.2, video: 0, hls: 0.8, download: 0 };

export interface SessionContext {
  random: Random;
  catalogue: Catalogue;
  popularity: Popularity;
  location: number;
}

export function drawSessionKind(random: Random, mix: SessionMix = SESSION_MIX): SessionKind {
  let left = random.next();
  for (const [kind, weight] of Object.entries(mix) as [SessionKind, number][]) {
    left -= weight;
    if (left < 0) return kind;
  }
  return 'page';
}

/** The requests of one session of `kind` starting at `atMs`. */
export function session(kind: SessionKind, context: SessionContext, atMs: number): TraceRequest[] {
  if (kind === 'video') return videoSession(context, atMs);
  if (kind === 'hls') return hlsSession(context, atMs);
  if (kind === 'download') return downloadSession(context, atMs);
  return pageLoad(context, atMs);
}

/** The page, then 4–16 assets and 1–8 images, each a few ms after the last (a browser's parser finding them). */
function pageLoad({ random, catalogue, popularity, location }: SessionContext, atMs: number): TraceRequest[] {
  const page = ranked(catalogue.pages, popularity.pages, random);
  const requests = [get(atMs, location, page)];
  let at = atMs + integerBetween(random, 20, 80);
  for (let n = integerBetween(random, 4, 16); n > 0; n--) {
    requests.push(get(at, location, ranked(catalogue.assets, popularity.assets, random)));
    at += integerBetween(random, 0, 15);
  }
  for (let n = integerBetween(random, 1, 8); n > 0; n--) {
    requests.push(get(at, location, ranked(catalogue.images, popularity.images, random)));
    at += integerBetween(random, 0, 25);
  }
  return requests;
}

/** `bytes=0-` cut after the header (2–10 %), a seek cut too (60 % of sessions), then play to the end from a point. */
function videoSession({ random, catalogue, popularity, location }: SessionContext, atMs: number): TraceRequest[] {
  const video = ranked(catalogue.videos, popularity.videos, random);
  const part = () => Math.max(1, Math.floor(video.size * (0.02 + 0.08 * random.next())));
  const requests = [get(atMs, location, video, { range: 'bytes=0-', abortAfter: part() })];
  let at = atMs + integerBetween(random, 200, 1500);
  if (chance(random, 0.6)) {
    const seek = Math.floor(video.size * (0.3 + 0.4 * random.next()));
    requests.push(get(at, location, video, { range: `bytes=${seek}-`, abortAfter: part() }));
    at += integerBetween(random, 500, 3000);
  }
  const play = Math.floor(video.size * 0.5 * random.next());
  requests.push(get(at, location, video, { range: `bytes=${play}-` }));
  return requests;
}

/** The playlist, then 1–30 segments in order, one per segment duration; a switch of bitrate at one in five. */
function hlsSession({ random, catalogue, popularity, location }: SessionContext, atMs: number): TraceRequest[] {
  const title = catalogue.hls[popularity.hls(random)];
  if (title === undefined) return [];
  let rendition = integerBetween(random, 0, title.length - 1);
  const playlist = title[rendition]?.playlist;
  if (playlist === undefined) return [];
  const requests = [get(atMs, location, playlist)];
  const segments = Math.min(title[0]?.segments.length ?? 0, 1 + Math.floor(exponential(random, 10)));
  for (let i = 0; i < segments; i++) {
    if (chance(random, 0.2)) rendition = integerBetween(random, 0, title.length - 1);
    const segment = title[rendition]?.segments[i];
    if (segment !== undefined) requests.push(get(atMs + 50 + i * HLS_SEGMENT_SECONDS * 1000, location, segment));
  }
  return requests;
}

/** A whole GET cut at 20–80 %, and 1–5 s later the reconnect for the rest (`bytes=N-`, N the bytes it had). */
function downloadSession(context: SessionContext, atMs: number): TraceRequest[] {
  const { random, catalogue, popularity, location } = context;
  const object = chance(random, 0.7)
    ? ranked(catalogue.videos, popularity.videos, random)
    : ranked(catalogue.images, popularity.images, random);
  const had = Math.max(1, Math.floor(object.size * (0.2 + 0.6 * random.next())));
  return [
    get(atMs, location, object, { abortAfter: had }),
    get(atMs + integerBetween(random, 1000, 5000), location, object, { range: `bytes=${had}-` }),
  ];
}

function ranked(list: readonly TraceObject[], sampler: RankSampler, random: Random): TraceObject {
  return list[sampler(random)] ?? pick(random, list);
}

function get(
  atMs: number,
  location: number,
  object: TraceObject,
  options: { range?: string; abortAfter?: number } = {},
): TraceRequest {
  return { atMs: Math.round(atMs), location, method: 'GET', path: object.path, ...options };
}
