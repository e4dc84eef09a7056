import type { RawConfig } from '../shared/config/config.ts';

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
