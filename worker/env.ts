import type { RawConfig } from '../shared/config.ts';

/** The edge worker's bindings: the configuration contract, the shield service binding, the purge list. */
export interface EdgeEnv extends RawConfig {
  SHIELD: Fetcher;
  /** The global purge list (shared/purge-store.ts), shared with the shield; absent = purge unavailable. */
  PURGES?: KVNamespace;
}
