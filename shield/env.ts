import type { RawConfig } from '../shared/config.ts';

/** The shield worker's bindings: the configuration contract (vars and secrets) and the purge list. */
export type ShieldEnv = RawConfig & {
  /** The global purge list (shared/purge-store.ts), shared with the edge. */
  PURGES?: KVNamespace;
};
