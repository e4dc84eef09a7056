// `npm start` without ORIGIN_URL (local/embedded-settings.ts): what it sets for the embedded
// origin, what it keeps of the user's settings, and what it says about them.

import { describe, expect, it } from 'vitest';
import { embeddedOriginRefusal, useEmbeddedOrigin } from '../../local/embedded-settings.ts';
import { parseConfig, type RawConfig } from '../../shared/config/config.ts';
import { ConfigError } from '../../shared/http/errors.ts';

const HTTP_WITHOUT_URL =
  'ORIGIN_KIND=http needs ORIGIN_URL, the site to front (without ORIGIN_URL, npm start runs an embedded S3 origin: unset ORIGIN_KIND for it)';
const ORIGIN = { url: 'http://127.0.0.1:4568', bucket: 'assets', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function embedded(given: RawConfig): { config: RawConfig; notes: string[] } {
  const config = { ...given };
  return { config, notes: useEmbeddedOrigin(config, ORIGIN) };
}

describe('the embedded origin settings', () => {
  it('point an empty configuration at the embedded origin, with its bucket and account, path-style', () => {
    expect(embedded({})).toEqual({
      config: {
        ORIGIN_KIND: 's3',
        S3_BUCKET: 'assets',
        S3_ADDRESSING: 'path',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        ORIGIN_URL: ORIGIN.url,
      },
      notes: [],
    });
  });

  it('keep a misspelt ORIGIN_KIND or S3_ADDRESSING, so that parseConfig names each', () => {
    const { config, notes } = embedded({ ORIGIN_KIND: 's33', S3_ADDRESSING: 'vhost' });
    expect(notes).toEqual([]);
    let error: unknown;
    try {
      parseConfig(config);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'ORIGIN_KIND must be one of s3|http, got "s33"',
      'S3_ADDRESSING must be one of path|virtual, got "vhost"',
    ]);
  });

  it('refuse ORIGIN_KIND=http: it names a site to front, which the embedded S3 origin is not', () => {
    expect(embeddedOriginRefusal({ ORIGIN_KIND: 'http' })).toBe(HTTP_WITHOUT_URL);
    expect(() => embedded({ ORIGIN_KIND: 'http' })).toThrow(new ConfigError(HTTP_WITHOUT_URL));
    expect(embeddedOriginRefusal({})).toBeUndefined();
    expect(embeddedOriginRefusal({ ORIGIN_KIND: 's3' })).toBeUndefined();
  });

  it('set aside a valid S3_BUCKET or S3_ADDRESSING that cannot apply to it, with a note each', () => {
    const { config, notes } = embedded({ S3_BUCKET: 'mine', S3_ADDRESSING: 'virtual' });
    expect(config).toMatchObject({ ORIGIN_KIND: 's3', S3_BUCKET: 'assets', S3_ADDRESSING: 'path' });
    expect(notes).toEqual([
      'S3_BUCKET ignored: the embedded origin needs S3_BUCKET=assets (set ORIGIN_URL to use another origin)',
      'S3_ADDRESSING ignored: the embedded origin needs S3_ADDRESSING=path (set ORIGIN_URL to use another origin)',
    ]);
  });

  it('keep credentials the user gives, for the shield to sign with, saying so without printing them', () => {
    const { config, notes } = embedded({ S3_SECRET_ACCESS_KEY: 'wrong-secret-3c1d' });
    expect(config).toMatchObject({ S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'wrong-secret-3c1d' });
    expect(notes).toEqual([
      'S3_SECRET_ACCESS_KEY set: the shield signs with it, and the embedded origin, whose account is another, refuses it as S3 would (unset it for the sample site)',
    ]);
    expect(embedded({ S3_ACCESS_KEY_ID: 'NOBODY' }).notes.join('\n')).not.toContain('NOBODY');
  });

  it('say nothing of a setting given as the embedded origin needs it', () => {
    expect(
      embedded({
        ORIGIN_KIND: 's3',
        S3_BUCKET: 'assets',
        S3_ADDRESSING: 'path',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      }).notes,
    ).toEqual([]);
  });
});
