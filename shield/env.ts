// The shield's bindings: `ShieldEnv` as the platform hands them (index.ts reads it and nothing
// else does), and `ShieldBindings`, what the code is given: the configuration parsed once per
// isolate and the bindings it uses, by name.

import { type Config, type RawConfig, configFrom, oncePerEnv } from '../shared/config/config.ts';

/** The shield worker's bindings: the configuration contract (vars and secrets) and the purge list. */
export type ShieldEnv = RawConfig & {
  /** The global purge list (shared/purge/purge-store.ts), shared with the edge. */
  PURGES?: KVNamespace;
  /** The local test stack's movable clock (shared/tier/test-clock.ts); never bound when deployed. */
  TEST_CLOCK?: Fetcher;
};

export interface ShieldBindings {
  config: Config;
  purges: KVNamespace | undefined;
  testClock: Fetcher | undefined;
}

/** Once per bindings object (an isolate keeps the same `env`); throws ConfigError naming a bad setting. */
export const shieldBindings = oncePerEnv((env: ShieldEnv): ShieldBindings => ({ config: configFrom(env), purges: env.PURGES, testClock: env.TEST_CLOCK }));
