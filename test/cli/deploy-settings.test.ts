// What is checked of tiercache.config.ts before anything is generated or deployed (cli/deploy-settings.ts): the
// shield's cache mode and its hostname, and a placement Cloudflare cannot locate.

import { describe, expect, it } from 'vitest';
import {
  ANYCAST_HOSTS,
  type DeploySettings,
  PLACEMENT_DOC,
  settingsProblems,
  settingsWarnings,
  shieldCache,
  shieldPlacement,
} from '../../cli/deploy-settings.ts';
import settings from '../../tiercache.config.ts';

/** The shipped settings with a hostname of the test's own (the example one is refused). */
const mine: DeploySettings = {
  ...settings,
  edge: { ...settings.edge, routes: [{ pattern: 'cdn.test.example', custom_domain: true }] },
};
const withShield = (shield: Partial<DeploySettings['shield']>): DeploySettings => ({
  ...mine,
  shield: { ...mine.shield, ...shield },
});
const withOrigin = (url: string): DeploySettings => ({ ...mine, vars: { ...mine.vars, ORIGIN_URL: url } });

describe('the shield cache mode', () => {
  it("is 'workers-cache' unless the settings say 'cache-api'", () => {
    expect(shieldCache(mine)).toBe('workers-cache');
    expect(shieldCache(withShield({ cache: undefined }))).toBe('workers-cache');
    expect(shieldCache(withShield({ cache: 'cache-api', hostname: 'shield.test.example' }))).toBe('cache-api');
  });

  it("refuses 'cache-api' without a hostname of the user's own", () => {
    expect(settingsProblems(mine)).toEqual([]);
    expect(settingsProblems(withShield({ cache: 'cache-api', hostname: 'shield.test.example' }))).toEqual([]);
    expect(settingsProblems(withShield({ cache: 'cache-api' })).join('\n')).toContain(
      "shield.cache is 'cache-api' but shield.hostname is not set",
    );
    expect(settingsProblems(withShield({ cache: 'cache-api', hostname: 'shield.example.com' })).join('\n')).toContain(
      'shield.hostname names shield.example.com: set a hostname of your own',
    );
    expect(
      settingsProblems(withShield({ cache: 'cache-api', hostname: 'https://shield.test.example/' })).join('\n'),
    ).toContain('expected a hostname (no scheme, port or path)');
    expect(settingsProblems(withShield({ cache: 'cache-api', hostname: 'cdn.test.example' })).join('\n')).toContain(
      "is also the edge's",
    );
  });

  it('refuses a mode it does not know, naming the two it does', () => {
    const unknown = withShield({ cache: 'both' as 'cache-api' });
    expect(settingsProblems(unknown).join('\n')).toContain("expected 'workers-cache' or 'cache-api'");
  });
});

describe('placement', () => {
  it('places the shield by a regional Storj gateway by default, and warns of nothing', () => {
    expect(settings.vars.ORIGIN_URL).toBe('https://gateway.us1.storjshare.io');
    expect(shieldPlacement(mine)).toEqual({ mode: 'targeted', hostname: 'gateway.us1.storjshare.io' });
    expect(settingsWarnings(mine)).toEqual([]);
  });

  it('places the shield by the preferred endpoint where ORIGIN_URL lists several', () => {
    const several = withOrigin('https://gateway.eu1.storjshare.io, https://gateway.us1.storjshare.io');
    expect(shieldPlacement(several)).toEqual({ mode: 'targeted', hostname: 'gateway.eu1.storjshare.io' });
  });

  it('warns when the placement target is an anycast host, citing Cloudflare, naming the regional gateways', () => {
    for (const host of ANYCAST_HOSTS) {
      const warnings = settingsWarnings(withOrigin(`https://${host}`)).join('\n');
      expect(warnings).toContain(`the shield is placed next to ${host}`);
      expect(warnings).toContain('do not work correctly for broadcast, anycast, multicast, or replicated resources');
      expect(warnings).toContain(PLACEMENT_DOC);
      expect(warnings).toContain('gateway.us1, gateway.eu1 or gateway.ap1.storjshare.io');
    }
    // Named by the placement setting too, as a hostname or a host:port.
    expect(
      settingsWarnings(withShield({ placement: { mode: 'targeted', host: 'gateway.storjshare.io:443' } })),
    ).toHaveLength(1);
    // A regional placement fixes an anycast origin's.
    const pinned = {
      ...withOrigin('https://gateway.storjshare.io'),
      shield: { ...mine.shield, placement: { mode: 'targeted' as const, hostname: 'gateway.eu1.storjshare.io' } },
    };
    expect(settingsWarnings(pinned)).toEqual([]);
  });
});
