// The origin at several endpoints (topology.ts `endpoints`, `npm run sim --slow-endpoint`): each a counting proxy in
// front of the one catalogue origin (bench/setup/slow-endpoint.ts), behind a link shaped like the origin's, the
// first one holding back the head of one answer in `slowEvery`. What each endpoint sent, and what it sent for
// requests the shield gave up (a hedge's loser), is the report's hedge egress.

import type { Shaper } from '../setup/shaper.ts';
import { type SlowEndpoint, startSlowEndpoint } from '../setup/slow-endpoint.ts';
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
      const slow = index === 0 ? (n: number) => n % endpoints.slowEvery === endpoints.slowEvery - 1 : () => false;
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

function endpointCounts(proxy: SlowEndpoint): EndpointCounts {
  const given = proxy.answers.filter((answer) => answer.gaveUp);
  return {
    requests: proxy.answers.length,
    held: proxy.answers.filter((answer) => answer.held).length,
    bytes: proxy.answers.reduce((sum, answer) => sum + answer.bytes, 0),
    gaveUp: given.length,
    gaveUpBytes: given.reduce((sum, answer) => sum + answer.bytes, 0),
  };
}
