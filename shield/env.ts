import type { RawConfig } from '../shared/config.ts';

/** The shield worker's bindings: the configuration contract (vars and secrets) only. */
export type ShieldEnv = RawConfig;
