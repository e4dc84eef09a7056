// A whole trace from a few numbers: sessions arriving at each location as a Poisson process over the catalogue's
// Zipf popularity (sessions.ts), one purge of a popular page (the runner times how long until no location serves
// it), and the cold crowd: a new object, not in any cache, asked by every location within 100 ms.

import { buildCatalogue, type Catalogue, catalogueObjects, DEFAULT_COUNTS } from './catalogue.ts';
import { exponential, integerBetween, seededRandom } from './random.ts';
import { drawSessionKind, type Popularity, SESSION_MIX, type SessionMix, session } from './sessions.ts';
import type { Trace, TraceObject, TraceRequest } from './trace.ts';
import { zipfSampler } from './zipf.ts';

export interface WorkloadOptions {
  locations: number;
  minutes: number;
  /** Zipf's α (0.6–1.0 fits what CDNs see). */
  alpha: number;
  seed: number;
  /** Multiplies videos' and HLS segments' sizes (catalogue.ts). */
  scale: number;
  /** Sessions starting per location per minute, on average. */
  sessionsPerMinute: number;
  /**
   * The cold crowd's object (64 MiB, as the many-locations promise is judged), asked by every location at `crowdAt` of
   * the trace; 0: no cold crowd.
   */
  crowdBytes: number;
  crowdAt: number;
  /** Where in the trace (a fraction of it) the purge is made, at location 0. */
  purgeAt: number;
  /** Which kinds of session arrive, with what weights (sessions.ts). */
  mix: SessionMix;
}

export const DEFAULT_WORKLOAD: WorkloadOptions = {
  locations: 6,
  minutes: 3,
  alpha: 0.8,
  seed: 37,
  scale: 0.05,
  sessionsPerMinute: 12,
  crowdBytes: 64 * 2 ** 20,
  crowdAt: 0.3,
  purgeAt: 0.15,
  mix: SESSION_MIX,
};

/** Tags the report groups requests by. */
export const CROWD_TAG = 'crowd';
export const PURGE_TAG = 'purge';
/** The window the cold crowd arrives in, from every location. */
export const CROWD_WINDOW_MS = 100;

export function generateTrace(options: WorkloadOptions): Trace {
  const random = seededRandom(options.seed);
  const catalogue = buildCatalogue(random, options.scale, DEFAULT_COUNTS);
  const popularity = popularityOf(catalogue, options.alpha);
  const durationMs = options.minutes * 60_000;
  const requests: TraceRequest[] = [];
  for (let location = 0; location < options.locations; location++) {
    // Each location its own stream, so that adding a location leaves the others' requests as they were.
    const local = seededRandom(options.seed * 1_000_003 + location + 1);
    const meanGapMs = 60_000 / options.sessionsPerMinute;
    for (let at = exponential(local, meanGapMs); at < durationMs; at += exponential(local, meanGapMs)) {
      const context = { random: local, catalogue, popularity, location };
      for (const request of session(drawSessionKind(local, options.mix), context, at))
        if (request.atMs < durationMs) requests.push(request);
    }
  }
  const crowd: TraceObject = { path: `/crowd/${options.seed}.bin`, size: options.crowdBytes };
  const crowdAt = Math.round(durationMs * options.crowdAt);
  for (let location = 0; options.crowdBytes > 0 && location < options.locations; location++)
    requests.push({
      atMs: crowdAt + integerBetween(random, 0, CROWD_WINDOW_MS - 1),
      location,
      method: 'GET',
      path: crowd.path,
      tag: CROWD_TAG,
    });
  const purged = catalogue.pages[0];
  if (purged !== undefined)
    requests.push({
      atMs: Math.round(durationMs * options.purgeAt),
      location: 0,
      method: 'PURGE',
      path: purged.path,
      tag: PURGE_TAG,
    });
  requests.sort((a, b) => a.atMs - b.atMs);
  return { objects: [...catalogueObjects(catalogue), ...(options.crowdBytes > 0 ? [crowd] : [])], requests };
}

function popularityOf(catalogue: Catalogue, alpha: number): Popularity {
  const sampler = (count: number) => zipfSampler(Math.max(1, count), alpha);
  return {
    pages: sampler(catalogue.pages.length),
    assets: sampler(catalogue.assets.length),
    images: sampler(catalogue.images.length),
    videos: sampler(catalogue.videos.length),
    hls: sampler(catalogue.hls.length),
  };
}
