import { describe, expect, it } from 'vitest';
import { parseConfig, type RawConfig } from '../../../shared/config/config.ts';
import { ConfigError } from '../../../shared/http/errors.ts';

const s3Minimal: RawConfig = {
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'AKID',
  S3_SECRET_ACCESS_KEY: 'SECRET-KEY-VALUE',
};

/** The problems parseConfig names for SHIELD_URL=value. */
function problems(value: string): readonly string[] {
  try {
    parseConfig({ ...s3Minimal, SHIELD_URL: value });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('SHIELD_URL: where the edge reaches a shield on a hostname of its own', () => {
  it('is absent by default: the edge reaches the shield over its service binding', () => {
    expect(parseConfig(s3Minimal).shieldUrl).toBeUndefined();
  });

  it('takes an https origin, trimmed, a trailing slash or none', () => {
    expect(parseConfig({ ...s3Minimal, SHIELD_URL: ' https://shield.example.com ' }).shieldUrl?.href).toBe(
      'https://shield.example.com/',
    );
    expect(parseConfig({ ...s3Minimal, SHIELD_URL: 'https://shield.example.com:8443/' }).shieldUrl?.origin).toBe(
      'https://shield.example.com:8443',
    );
  });

  it('takes plain http on loopback only, for the local stack', () => {
    expect(parseConfig({ ...s3Minimal, SHIELD_URL: 'http://127.0.0.1:8788' }).shieldUrl?.origin).toBe(
      'http://127.0.0.1:8788',
    );
    expect(parseConfig({ ...s3Minimal, SHIELD_URL: 'http://localhost:8788' }).shieldUrl?.origin).toBe(
      'http://localhost:8788',
    );
    expect(problems('http://shield.example.com')).toEqual([
      'SHIELD_URL must use https (http only on loopback): the edge sends its credential there, got http:',
    ]);
  });

  it('refuses what is not an origin: a path, a query, a fragment, credentials, another scheme, not a URL', () => {
    const refused = "SHIELD_URL must be the shield's origin alone, like https://shield.example.com";
    expect(problems('https://shield.example.com/base')).toEqual([`${refused}, got a path, query or fragment`]);
    expect(problems('https://shield.example.com/?a=1')).toEqual([`${refused}, got a path, query or fragment`]);
    expect(problems('https://shield.example.com/#x')).toEqual([`${refused}, got a path, query or fragment`]);
    expect(problems('https://user:pass@shield.example.com')).toEqual([`${refused}, got a user name or password`]);
    expect(problems('ftp://shield.example.com')).toEqual([
      'SHIELD_URL must use https (http only on loopback): the edge sends its credential there, got ftp:',
    ]);
    expect(problems('shield.example.com')).toEqual([`${refused}, got something that is not an absolute URL`]);
  });

  it('never echoes a refused value: it may carry a credential', () => {
    for (const problem of problems('https://user:secret-pass@shield.example.com/x'))
      expect(problem).not.toContain('secret-pass');
  });

  it('is reported with every other problem at once', () => {
    try {
      parseConfig({ SHIELD_URL: 'http://shield.example.com' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.length).toBeGreaterThan(1);
      expect((error as ConfigError).problems.some((p) => p.startsWith('SHIELD_URL'))).toBe(true);
    }
  });
});
