import { describe, expect, it } from 'vitest';
import { CONFIG_NAMES, parseConfig, type RawConfig } from '../../../shared/config/config.ts';
import { ConfigError } from '../../../shared/http/errors.ts';

const s3Minimal: RawConfig = {
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'AKID',
  S3_SECRET_ACCESS_KEY: 'SECRET-KEY-VALUE',
};

function configError(raw: RawConfig): ConfigError {
  try {
    parseConfig({ ...s3Minimal, ...raw });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(raw)}`);
}

describe('the static-site settings', () => {
  it('are part of the configuration contract', () => {
    for (const name of ['INDEX_DOCUMENT', 'NOT_FOUND_DOCUMENT', 'CONTENT_TYPE_FROM_EXTENSION', 'CORS_ALLOW_ORIGINS'])
      expect(CONFIG_NAMES).toContain(name);
  });

  it('are off by default, except the Content-Type fix', () => {
    expect(parseConfig(s3Minimal).site).toEqual({
      indexDocument: undefined,
      notFoundDocument: undefined,
      contentTypeFromExtension: true,
      corsAllowOrigins: [],
    });
  });

  it('treat a blank setting as absent', () => {
    const site = parseConfig({
      ...s3Minimal,
      INDEX_DOCUMENT: ' ',
      NOT_FOUND_DOCUMENT: '',
      CONTENT_TYPE_FROM_EXTENSION: ' ',
      CORS_ALLOW_ORIGINS: '  ',
    }).site;
    expect(site).toEqual({
      indexDocument: undefined,
      notFoundDocument: undefined,
      contentTypeFromExtension: true,
      corsAllowOrigins: [],
    });
  });

  it('use each setting as given, trimmed', () => {
    const site = parseConfig({
      ...s3Minimal,
      INDEX_DOCUMENT: ' index.html ',
      NOT_FOUND_DOCUMENT: '/errors/404.html',
      CONTENT_TYPE_FROM_EXTENSION: 'off',
      CORS_ALLOW_ORIGINS: 'https://app.example, https://admin.example',
    }).site;
    expect(site).toEqual({
      indexDocument: 'index.html',
      notFoundDocument: 'errors/404.html',
      contentTypeFromExtension: false,
      corsAllowOrigins: ['https://app.example', 'https://admin.example'],
    });
  });

  it('refuse an index document with a "/" in it, as S3 website hosting does', () => {
    expect(configError({ INDEX_DOCUMENT: 'docs/index.html' }).message).toMatch(
      /^INDEX_DOCUMENT must be a name without "\/"/,
    );
  });

  it('refuse documents that name no object key', () => {
    expect(configError({ INDEX_DOCUMENT: '..' }).message).toMatch(
      /^INDEX_DOCUMENT must name an object key: expected no "\.\." segment/,
    );
    expect(configError({ NOT_FOUND_DOCUMENT: 'errors/../404.html' }).message).toMatch(
      /^NOT_FOUND_DOCUMENT must name an object key/,
    );
    expect(configError({ NOT_FOUND_DOCUMENT: '404\u0001.html' }).message).toMatch(/control characters/);
  });

  it('refuse a switch that is neither on nor off, and origins that are not origins', () => {
    expect(configError({ CONTENT_TYPE_FROM_EXTENSION: 'yes' }).message).toBe(
      'CONTENT_TYPE_FROM_EXTENSION must be one of on|off, got "yes"',
    );
    expect(configError({ CORS_ALLOW_ORIGINS: 'app.example' }).message).toMatch(
      /^CORS_ALLOW_ORIGINS must list origins like https:\/\/app\.example, got "app\.example"/,
    );
  });
});
