// The origin at several endpoints (topology.ts `endpoints`, `npm run sim --slow-endpoint`): each a counting proxy in
// front of the one catalogue origin (bench/setup/slow-endpoint.ts), behind a link shaped like the origin's, the
// first one holding back the head of one answer in `slowEvery`. What each endpoint sent, and what it sent for
// requests the shield gave up (a hedge's loser), is the report's hedge egress.
//
// Which answers are held is a hash of what is asked (method, path, Range), not of the order requests come in: the
// systems of a run (hedging off, then on) meet the same slow answers, so that their tails compare request by request.
// Held by arrival order, two runs reached the slow endpoint's every fifth request with other requests, and the misses
// that differed by the hold either way were the runner's luck, not the hedge's doing.

import type { Shaper } from '../setup/shaper.ts';
import { type AskedOfEndpoint, type SlowEndpoint, startSlowEndpoint } from '../setup/slow-endpoint.ts';
import { originLink, startLink } from './links.ts';
import type { EndpointCounts } from './system.ts';
import type { SimEndpoints, SimTopology } from './topology.ts';

export interface OriginEndpoints {
  /** Each endpoint's URL, the preferred (slow) one first: an ORIGIN_URL listing them. */
  urls: string[];
  /** Their shaped links, in the same order. */
  links: Shaper[];
  counts(): EndpointCounts[];
  close(): Promise<void>;
}

export async function startOriginEndpoints(
  topology: SimTopology,
  endpoints: SimEndpoints,
  origin: string,
): Promise<OriginEndpoints> {
  const proxies: SlowEndpoint[] = [];
  const links: Shaper[] = [];
  const close = async (): Promise<void> => {
    for (const link of links) await link.close().catch(() => undefined);
    for (const proxy of proxies) await proxy.close().catch(() => undefined);
  };
  try {
    for (let index = 0; index < endpoints.count; index++) {
      const slow = index === 0 ? heldOneIn(endpoints.slowEvery) : () => false;
      const proxy = await startSlowEndpoint(origin, endpoints.slowHoldMs, slow);
      proxies.push(proxy);
      links.push(await startLink(originLink(topology), proxy.url));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    urls: links.map((link) => link.url),
    links,
    counts: () => proxies.map((proxy) => endpointCounts(proxy)),
    close,
  };
}

/** One request in `every` held, picked by an FNV-1a hash of its method, path and Range: the same ones in every run. */
export function heldOneIn(every: number): (request: AskedOfEndpoint) => boolean {
  return ({ method, path, range }) => fnv1a(`${method} ${path} ${range ?? ''}`) % every === 0;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function endpointCounts(proxy: SlowEndpoint): EndpointCounts {
  const given = proxy.answers.filter((answer) => answer.gaveUp);
  const held = proxy.answers.filter((answer) => answer.held);
  return {
    requests: proxy.answers.length,
    held: held.length,
    heldPaths: [...new Set(held.map((answer) => answer.path))],
    bytes: proxy.answers.reduce((sum, answer) => sum + answer.bytes, 0),
    gaveUp: given.length,
    gaveUpBytes: given.reduce((sum, answer) => sum + answer.bytes, 0),
  };
}
