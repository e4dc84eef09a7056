import type { RawConfig } from '../shared/config.ts';

/** The edge worker's bindings: the configuration contract plus the shield service binding. */
export interface EdgeEnv extends RawConfig {
  SHIELD: Fetcher;
}
