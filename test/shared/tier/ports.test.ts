// The read policy a tier hands the read path (shared/tier/ports.ts readPolicy): the configuration's, with what the
// rules matching the request say in place of DEFAULT_TTL and the stale windows, and over the answer's own with
// `override`.

import { describe, expect, it } from 'vitest';
import { PLATFORM_CLOCK } from '../../../shared/clock/clock.ts';
import { parseConfig } from '../../../shared/config/config.ts';
import { applyRules } from '../../../shared/rules/rules-match.ts';
import { readPolicy } from '../../../shared/tier/ports.ts';

const RULES = [
  { name: 'assets', match: { path: '/assets/*' }, edgeTtl: 31_536_000 },
  { name: 'api', match: { path: '/api/*' }, edgeTtl: 600, override: true, staleIfError: 5 },
];
const config = parseConfig({
  S3_BUCKET: 'b',
  S3_ACCESS_KEY_ID: 'k',
  S3_SECRET_ACCESS_KEY: 's',
  DEFAULT_TTL: '3600',
  STALE_WHILE_REVALIDATE: '60',
  STALE_IF_ERROR: '86400',
  RULES: JSON.stringify(RULES),
});
const policyFor = (path: string) =>
  readPolicy(config, PLATFORM_CLOCK, applyRules(config.rules, { host: 'cdn.example', path, method: 'GET' }));

describe('readPolicy', () => {
  it('is the configuration’s where no rule matches, with no override', () => {
    const policy = policyFor('/other.txt');
    expect(policy).toMatchObject({ defaultTtl: 3600, staleDefaults: { whileRevalidate: 60, ifError: 86_400 } });
    expect(policy.override).toBeUndefined();
    expect(readPolicy(config).override).toBeUndefined();
  });

  it('takes a rule’s edgeTtl in place of DEFAULT_TTL, the configured stale windows kept', () => {
    const policy = policyFor('/assets/app.js');
    expect(policy).toMatchObject({ defaultTtl: 31_536_000, staleDefaults: { whileRevalidate: 60, ifError: 86_400 } });
    expect(policy.override).toBeUndefined();
  });

  it('overrides with a rule’s edgeTtl and the stale windows it gives, when it says override', () => {
    const policy = policyFor('/api/prices');
    expect(policy.override).toEqual({ lifetime: 600, staleWhileRevalidate: undefined, staleIfError: 5 });
    expect(policy.staleDefaults).toEqual({ whileRevalidate: 60, ifError: 5 });
  });
});
