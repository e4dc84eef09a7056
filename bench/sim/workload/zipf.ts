// Zipf popularity: the object of rank k (1-based) is asked with weight 1/k^α. Web and video catalogues fit α between
// 0.6 and 1.0 (Breslau et al., "Web Caching and Zipf-like Distributions", INFOCOM 1999: 0.64–0.83 for web proxies).

import type { Random } from './random.ts';

/** Draws a rank in [0, n) (0 the most popular) by inverse CDF over the cumulative weights: O(log n) per draw. */
export type RankSampler = (random: Random) => number;

export function zipfSampler(n: number, alpha: number): RankSampler {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`expected at least one object, got ${n}`);
  if (!(alpha >= 0)) throw new RangeError(`expected α ≥ 0, got ${alpha}`);
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank++) {
    total += 1 / (rank + 1) ** alpha;
    cumulative[rank] = total;
  }
  return (random) => {
    const target = random.next() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] ?? total) > target) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}
