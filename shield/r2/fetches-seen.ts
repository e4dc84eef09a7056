// The R2 tier's next hop (the origin) with every fetch it answers told to the isolate's FetchHistory, under the key
// the R2 tier stores what it fetched (shared/tier/hop-tier-key.ts hopTierKey; a slice's, slice-plan.ts sliceKey), before
// the read path stores it: the admission (r2-admitted.ts) weighs each entry by the fetches seen of it.

import { framedBytes } from '../../shared/http/body-length.ts';
import { type SliceSpan, sliceKey } from '../../shared/slices/slice-plan.ts';
import type { FetchHistory } from '../../shared/store/fetch-history.ts';
import { hopTierKey } from '../../shared/tier/hop-tier-key.ts';
import type { NextHop } from '../../shared/tier/next-hop.ts';
import type { UpstreamAnswer } from '../../shared/tier/ports.ts';

/**
 * `next`, each answer of it counted in `history` at `now`, with the bytes it moved: a discovery (asked without a
 * version) as a fetch of the object (its whole entry, or its manifest, which stands for the slice it finds), and every
 * slice a span answer brings as a fetch of that slice. A 304, a span past the end, a failure: no bytes moved, nothing
 * counted.
 */
export function fetchesSeen<Health>(next: NextHop<Health>, history: FetchHistory, now: () => number): NextHop<Health> {
  return {
    ...next,
    object(ask) {
      const upstream = next.object(ask);
      const objectKey = hopTierKey('r2', ask.host, ask.target);
      return {
        async slices(span, pinned, sliceAsk) {
          const answer = await upstream.slices(span, pinned, sliceAsk);
          for (const [key, bytes] of fetched(objectKey, answer, pinned === undefined))
            history.fetched(key, now(), bytes);
          return answer;
        },
        head: (signal) => upstream.head(signal),
      };
    },
  };
}

/** The entries an answer brought from the origin, by key, each with the bytes it moved (undefined: not said). */
function fetched(objectKey: string, answer: UpstreamAnswer, discovery: boolean): [string, number | undefined][] {
  if (answer.kind === 'whole')
    return answer.response.status === 200
      ? [[objectKey, framedBytes('GET', 200, answer.response.headers.get('content-length'))]]
      : [];
  if (answer.kind !== 'span') return [];
  const { meta } = answer;
  const sliceBytes = (index: number): number =>
    Math.max(0, Math.min(meta.sliceSize, meta.size - index * meta.sliceSize));
  return [
    ...(discovery ? [[objectKey, sliceBytes(0)] as [string, number]] : []),
    ...indices(answer.span).map((index): [string, number] => [
      sliceKey(objectKey, meta, meta.sliceSize, index),
      sliceBytes(index),
    ]),
  ];
}

function indices(span: SliceSpan): number[] {
  return Array.from({ length: span.last - span.first + 1 }, (_, offset) => span.first + offset);
}
