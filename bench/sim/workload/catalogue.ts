// What a generated trace asks for: pages, static assets, images, progressive videos and HLS titles, each a path and
// a size. Sizes follow what CDNs see: small files log-normal (Breslau et al. 1999; the HTTP Archive's page weights),
// videos 20–500 MB, HLS segments of 4 s at three bitrates (Apple's HLS authoring spec suggests 6 s; 4 s is common).
// Large things are multiplied by `scale` so that a run fits a small machine: the shapes stay, the bytes shrink.

import { integerBetween, logNormal, logUniform, type Random } from './random.ts';
import type { TraceObject } from './trace.ts';

const KB = 1000;
const MB = 1000 * KB;

/** How many of each a catalogue holds. */
export interface CatalogueCounts {
  pages: number;
  assets: number;
  images: number;
  videos: number;
  hlsTitles: number;
  /** Segments per rendition of an HLS title. */
  hlsSegments: number;
}

export const DEFAULT_COUNTS: CatalogueCounts = {
  pages: 200,
  assets: 1500,
  images: 800,
  videos: 30,
  hlsTitles: 8,
  hlsSegments: 30,
};

/** HLS renditions' bitrates (bits/s) and their segments' duration. */
const HLS_BITRATES = [800_000, 2_500_000, 6_000_000] as const;
export const HLS_SEGMENT_SECONDS = 4;

interface HlsRendition {
  playlist: TraceObject;
  segments: TraceObject[];
}

export interface Catalogue {
  /** Each list in popularity order: the first is the most asked (Zipf rank 1). */
  pages: TraceObject[];
  assets: TraceObject[];
  images: TraceObject[];
  videos: TraceObject[];
  hls: HlsRendition[][];
}

/** A catalogue drawn from `random`; `scale` multiplies the sizes of videos and HLS segments. */
export function buildCatalogue(random: Random, scale: number, counts: CatalogueCounts = DEFAULT_COUNTS): Catalogue {
  if (!(scale > 0 && scale <= 1)) throw new RangeError(`expected a scale in (0, 1], got ${scale}`);
  const list = (count: number, path: (i: number) => string, size: () => number) =>
    Array.from({ length: count }, (_, i) => ({ path: path(i), size: Math.round(size()) }));
  return {
    pages: list(
      counts.pages,
      (i) => `/p/${i}.html`,
      () => clamp(logNormal(random, 30 * KB, 0.8), 2 * KB, 300 * KB),
    ),
    assets: list(
      counts.assets,
      (i) => `/s/${i}.${i % 3 === 0 ? 'css' : 'js'}`,
      () => clamp(logNormal(random, 20 * KB, 1.2), 1 * KB, 1 * MB),
    ),
    images: list(
      counts.images,
      (i) => `/i/${i}.jpg`,
      () => clamp(logNormal(random, 120 * KB, 1), 4 * KB, 2 * MB),
    ),
    videos: list(
      counts.videos,
      (i) => `/v/${i}.mp4`,
      () => Math.max(64 * KB, logUniform(random, 20 * MB, 500 * MB) * scale),
    ),
    hls: Array.from({ length: counts.hlsTitles }, (_, title) =>
      HLS_BITRATES.map((bitrate) => ({
        playlist: { path: `/h/${title}/${bitrate}/index.m3u8`, size: integerBetween(random, 1500, 3000) },
        segments: list(
          counts.hlsSegments,
          (i) => `/h/${title}/${bitrate}/${i}.ts`,
          () => Math.max(4 * KB, ((bitrate / 8) * HLS_SEGMENT_SECONDS * scale * (0.8 + 0.4 * random.next())) | 0),
        ),
      })),
    ),
  };
}

/** Every object of the catalogue, once. */
export function catalogueObjects(catalogue: Catalogue): TraceObject[] {
  return [
    ...catalogue.pages,
    ...catalogue.assets,
    ...catalogue.images,
    ...catalogue.videos,
    ...catalogue.hls.flat().flatMap((rendition) => [rendition.playlist, ...rendition.segments]),
  ];
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
