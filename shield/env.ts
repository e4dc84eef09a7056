import type { RawConfig } from '../shared/config/config.ts';

/** The shield worker's bindings: the configuration contract (vars and secrets) and the purge list. */
export type ShieldEnv = RawConfig & {
  /** The global purge list (shared/purge/purge-store.ts), shared with the edge. */
  PURGES?: KVNamespace;
  /** The local test stack's movable clock (shared/tier/test-clock.ts); never bound when deployed. */
  TEST_CLOCK?: Fetcher;
};
