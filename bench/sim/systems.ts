// LOCAL STUB (wt-workload only, deleted before the last commit): the lead writes the registry at merge.
import { startNoCache } from '../../test/sim/no-cache-system.ts';
import type { StartSystem, SystemName } from './system.ts';

export const SYSTEMS: Partial<Record<SystemName, StartSystem>> = { 'no-shield': startNoCache };
