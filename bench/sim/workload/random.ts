// A seeded pseudo-random source, so that one seed is one trace on every machine: splitmix32 (Steele, Lea & Flood,
// "Fast splittable pseudorandom number generators", 2014, the 32-bit variant), with the few distributions the
// workload draws from.

/** Uniform in [0, 1), from a seed: the same seed gives the same sequence. */
export interface Random {
  next(): number;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return {
    next() {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
    },
  };
}

/** An integer in [min, max], both included. */
export function integerBetween(random: Random, min: number, max: number): number {
  return min + Math.floor(random.next() * (max - min + 1));
}

/** Exponentially distributed with mean `mean` (Poisson arrivals' gaps). */
export function exponential(random: Random, mean: number): number {
  return -Math.log(1 - random.next()) * mean;
}

/** Log-normal: e^(μ + σ·N(0,1)), with the normal from Box–Muller; `median` is e^μ. */
export function logNormal(random: Random, median: number, sigma: number): number {
  const u = 1 - random.next();
  const v = random.next();
  const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return median * Math.exp(sigma * normal);
}

/** Log-uniform in [min, max]: as many objects of 20–50 MB as of 200–500 MB. */
export function logUniform(random: Random, min: number, max: number): number {
  return min * (max / min) ** random.next();
}

/** One of `items`, each as likely (items must not be empty). */
export function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random.next() * items.length)];
  if (item === undefined) throw new RangeError('pick from an empty list');
  return item;
}

/** true with probability `p`. */
export function chance(random: Random, p: number): boolean {
  return random.next() < p;
}
