// The systems `npm run sim` can run a trace against, by name (docs/sim.md): tiercache on the map, and its baselines on
// the same links. A system missing here, or one that fails to start (Varnish or nginx not installed), is reported
// as failed and the run goes on.

import type { StartSystem, SystemName } from './system.ts';
import { startNginxSliceSystem } from './systems/nginx-slice.ts';
import { startNoShieldSystem } from './systems/no-shield.ts';
import { startVarnishSystem } from './systems/varnish.ts';
import {
  startTiercache,
  startTiercacheNoHedge,
  startTiercacheNoPrefetch,
  startTiercacheNoR2,
  startTiercacheR2All,
} from './tiercache-system.ts';

export const SYSTEMS: Partial<Record<SystemName, StartSystem>> = {
  tiercache: startTiercache,
  'tiercache-no-hedge': startTiercacheNoHedge,
  'tiercache-no-prefetch': startTiercacheNoPrefetch,
  'tiercache-no-r2': startTiercacheNoR2,
  'tiercache-r2-all': startTiercacheR2All,
  'no-shield': startNoShieldSystem,
  varnish: startVarnishSystem,
  'nginx-slice': startNginxSliceSystem,
};
