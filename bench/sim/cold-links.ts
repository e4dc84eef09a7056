// Pure: the map bench:cold-download --topology plays on, the origin link's two shapes it switches between, and the
// sampled check of a download's bytes. Shaped is the map's origin link as every system has it (links.ts originLink);
// unshaped is the same link with no latency and no cap, so the same stack is measured at its own ceiling.

import type { LinkShape } from '../setup/shaper.ts';
import { originLink } from './links.ts';
import { defaultTopology, type SimTopology } from './topology.ts';
import { contentBytes } from './workload/content.ts';

/**
 * `map`: the client and shield links as the map lays them (latency, 100 MB/s a connection), as a user far from the
 * shield sees it; `open`: those two links with no latency and no cap, so the only link that differs between the two
 * shapes is the origin's and the ceiling is the stack's alone.
 */
export type ColdLinks = 'map' | 'open';

/** No latency, and a rate no connection on this machine reaches. */
const OPEN = { latencyMs: 0, bytesPerSec: 1e12 };

/** Two locations and one shield (Must-show 7 asks a cold download at a location, not the whole map). */
export function coldTopology(links: ColdLinks, locations = 2): SimTopology {
  const topology = defaultTopology({ locations });
  if (links === 'map') return topology;
  return { ...topology, locations: topology.locations.map((spec) => ({ ...spec, client: OPEN, shield: OPEN })) };
}

/**
 * The origin link shaped as the map has it and unshaped, for Shaper.reshape. `latencyFrom: 'response'` kept, as
 * links.ts starts it (reshape takes the default, `request`, where a shape names none).
 */
export function originShapes(topology: SimTopology): { shaped: LinkShape; unshaped: LinkShape } {
  const link = originLink(topology);
  return {
    shaped: { firstByteLatencyMs: link.latencyMs, bandwidthBytesPerSec: link.bytesPerSec, latencyFrom: 'response' },
    unshaped: { firstByteLatencyMs: OPEN.latencyMs, bandwidthBytesPerSec: OPEN.bytesPerSec, latencyFrom: 'response' },
  };
}

/** Bytes compared at each end of every chunk a download reads. */
export const SAMPLE_BYTES = 32;

/**
 * Whether `chunk`, read at `offset` of the object seeded `seed`, starts and ends with the object's bytes there: a
 * slice out of place, shifted, repeated or of another object fails it, at a cost the client's event loop (which also
 * carries the links) can bear at 100+ MiB/s, where comparing every byte would slow what it measures.
 */
export function sampledMatches(seed: number, offset: number, chunk: Uint8Array, sample = SAMPLE_BYTES): boolean {
  const head = Math.min(sample, chunk.length);
  const tail = Math.max(head, chunk.length - sample);
  return (
    same(chunk.subarray(0, head), contentBytes(seed, offset, head)) &&
    same(chunk.subarray(tail), contentBytes(seed, offset + tail, chunk.length - tail))
  );
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
