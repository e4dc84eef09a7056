import { describe, expect, it } from 'vitest';
import { parseConfig, type RawConfig, SECRET_CONFIG_NAMES } from '../../../shared/config/config.ts';
import { ConfigError } from '../../../shared/http/errors.ts';

const s3Minimal: RawConfig = {
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'AKID',
  S3_SECRET_ACCESS_KEY: 'SECRET-KEY-VALUE',
};
const SECRET = 's'.repeat(32);

function problems(raw: RawConfig): readonly string[] {
  try {
    parseConfig({ ...s3Minimal, ...raw });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(raw)}`);
}

describe('SIGNING_KEYS and SIGNED_PREFIXES', () => {
  it('are off by default: nothing is protected', () => {
    expect(parseConfig(s3Minimal).admission).toEqual({ signingKeys: new Map(), signedPrefixes: [] });
  });

  it('reads kid=secret pairs in order and the prefixes as written', () => {
    const { admission } = parseConfig({
      ...s3Minimal,
      SIGNING_KEYS: ` new=${SECRET}x , old=${SECRET} `,
      SIGNED_PREFIXES: '/video/, /paid/',
    });
    expect([...admission.signingKeys]).toEqual([
      ['new', `${SECRET}x`],
      ['old', SECRET],
    ]);
    expect(admission.signedPrefixes).toEqual(['/video/', '/paid/']);
  });

  it('keeps SIGNING_KEYS secret', () => {
    expect(SECRET_CONFIG_NAMES.has('SIGNING_KEYS')).toBe(true);
  });

  it('refuses prefixes without keys, naming both settings', () => {
    expect(problems({ SIGNED_PREFIXES: '/video/' })).toEqual([
      'SIGNED_PREFIXES needs SIGNING_KEYS (kid=secret,…): no signature could be checked',
    ]);
  });

  it('refuses a bad key or prefix, naming the setting and never the secret', () => {
    for (const [raw, expected] of [
      [{ SIGNING_KEYS: 'k1' }, /^SIGNING_KEYS must be kid=secret pairs/],
      [{ SIGNING_KEYS: `k 1=${SECRET}` }, /^SIGNING_KEYS must be kid=secret pairs/],
      [{ SIGNING_KEYS: `k1=${SECRET},k1=${SECRET}` }, /^SIGNING_KEYS names the key id "k1" twice/],
      [{ SIGNING_KEYS: 'k1=short' }, /^SIGNING_KEYS: the secret of "k1" must be at least 32 characters/],
      [{ SIGNED_PREFIXES: 'video/', SIGNING_KEYS: `k=${SECRET}` }, /^SIGNED_PREFIXES must be paths starting with "\/"/],
      [{ SIGNED_PREFIXES: '/a?b', SIGNING_KEYS: `k=${SECRET}` }, /^SIGNED_PREFIXES must be paths/],
      [{ SIGNED_PREFIXES: '/a%zz/', SIGNING_KEYS: `k=${SECRET}` }, /^SIGNED_PREFIXES must be paths/],
    ] as const) {
      const found = problems(raw);
      expect(found.join('; '), JSON.stringify(raw)).toMatch(expected);
      expect(found.join('; ')).not.toContain('short');
    }
  });
});
