// The edge's bindings: `EdgeEnv` as the platform hands them (index.ts reads it and nothing else
// does), and `EdgeBindings`, what the code is given: the configuration parsed once per isolate
// and the bindings it uses, by name.

import { type Config, type RawConfig, configFrom, oncePerEnv } from '../shared/config/config.ts';

/** The edge worker's bindings: the configuration contract, the shield service binding, the purge list. */
export interface EdgeEnv extends RawConfig {
  SHIELD: Fetcher;
  /** The global purge list (shared/purge/purge-store.ts), shared with the shield; absent = purge unavailable. */
  PURGES?: KVNamespace;
  /** The local test stack's movable clock (shared/tier/test-clock.ts); never bound when deployed. */
  TEST_CLOCK?: Fetcher;
  /** The local stack's front (local/front.ts) proves itself with this; never bound when deployed. */
  LOCAL_FRONT_TOKEN?: string;
}

export interface EdgeBindings {
  config: Config;
  shield: Fetcher;
  purges: KVNamespace | undefined;
  testClock: Fetcher | undefined;
}

/** Once per bindings object (an isolate keeps the same `env`); throws ConfigError naming a bad setting. */
export const edgeBindings = oncePerEnv((env: EdgeEnv): EdgeBindings => ({ config: configFrom(env), shield: env.SHIELD, purges: env.PURGES, testClock: env.TEST_CLOCK }));
