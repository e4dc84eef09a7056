// What a request and its bytes cost in CPU time, as measured on the local runtime (docs/costs.md): each
// number an upper bound of what Cloudflare would bill, named once beside the run it comes from.

// The local runtime is workerd under Miniflare, both tiers and the Cache API simulator in one process.
// Workers bill the CPU time of the isolates; locally each figure also holds the simulator's work and the
// kernel's writing of its entries to disk, so it is an upper bound of what Cloudflare would bill, not a
// measurement made there. `npm run bench:byte-cost` and `npm run bench:hit-cost` measure them again.

/** bench/results/20261201T215016Z/hit-cost.md: a warm 20 KB hit from the edge's memory layer, 90.7 µs. */
export const MEMORY_HIT_CPU_MS = 0.0907;

/**
 * bench/results/20261201T230608Z/byte-cost.md, "warm 20 KB": a request answered from the edge's Cache API, its bytes
 * aside.
 */
export const WARM_REQUEST_CPU_MS = 1.067;

/** Same run, "cold 20 KB": a request that misses at both tiers (the origin's fetch, both stores), its bytes aside. */
export const COLD_REQUEST_CPU_MS = 7.7;

/** Same run, (warm 1 MB − warm 20 KB) per MiB: the bytes of a stored whole object sent from a tier's cache. */
export const WARM_WHOLE_CPU_MS_PER_MIB = 0.713;

/** Same run, "warm 8 MiB ranges": per MiB of a stored slice sent, its request included. */
export const WARM_SLICE_CPU_MS_PER_MIB = 0.964;

/**
 * Same run, (cold 1 MB − cold 20 KB) per MiB: a whole object's bytes from the origin, stored at both tiers and sent.
 */
export const COLD_WHOLE_CPU_MS_PER_MIB = 5.029;

/**
 * Same run, "cold 64 MiB": per MiB of a sliced object from the origin, its slice requests, the
 * read-ahead copies and both stores included. Most of it is this machine's kernel taking new
 * pages for the simulator's entries (docs/benchmarks.md, "What bounds a cold download here").
 */
export const COLD_SLICED_CPU_MS_PER_MIB = 7.344;

/**
 * How a cold byte's work divides between the tiers: each stores it once and reads it back once
 * (docs/benchmarks.md, "What bounds a cold download here"), so half at each. An assumption: the local runtime runs
 * both tiers in one process and cannot tell them apart.
 */
export const EDGE_SHARE_OF_COLD = 0.5;
