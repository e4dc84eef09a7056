// The clock port: the time a tier judges freshness, purges and its findings' age by. Deployed it is the platform's; a
// harness that wraps a tier may bind another as CLOCK in its env, and the code that reads it never tells them apart.
// Timeouts, durations and signatures read the platform's time, not this.

/** Where a tier reads the time it judges by (ms epoch). */
export interface Clock {
  now(): number;
}

/** The platform's time: what every deployed tier judges by. */
export const PLATFORM_CLOCK: Clock = { now: () => Date.now() };
