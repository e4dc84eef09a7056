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
    for (const name of [
      'INDEX_DOCUMENT',
      'FOLDER_REDIRECT',
      'NOT_FOUND_DOCUMENT',
      'NOT_FOUND_DOCUMENTS',
      'ERROR_DOCUMENT',
      'CONTENT_TYPE_FROM_EXTENSION',
      'CORS_ALLOW_ORIGINS',
    ])
      expect(CONFIG_NAMES).toContain(name);
  });

  it('are off by default, except the Content-Type fix', () => {
    expect(parseConfig(s3Minimal).site).toEqual({
      indexDocument: undefined,
      folderRedirect: undefined,
      notFoundDocuments: [],
      errorDocument: undefined,
      contentTypeFromExtension: true,
      corsAllowOrigins: [],
    });
  });

  it('treat a blank setting as absent', () => {
    const site = parseConfig({
      ...s3Minimal,
      INDEX_DOCUMENT: ' ',
      FOLDER_REDIRECT: ' ',
      NOT_FOUND_DOCUMENT: '',
      NOT_FOUND_DOCUMENTS: ' , ',
      ERROR_DOCUMENT: ' ',
      CONTENT_TYPE_FROM_EXTENSION: ' ',
      CORS_ALLOW_ORIGINS: '  ',
    }).site;
    expect(site).toEqual({
      indexDocument: undefined,
      folderRedirect: undefined,
      notFoundDocuments: [],
      errorDocument: undefined,
      contentTypeFromExtension: true,
      corsAllowOrigins: [],
    });
  });

  it('use each setting as given, trimmed', () => {
    const site = parseConfig({
      ...s3Minimal,
      INDEX_DOCUMENT: ' index.html ',
      FOLDER_REDIRECT: ' 308 ',
      NOT_FOUND_DOCUMENT: '/errors/404.html',
      NOT_FOUND_DOCUMENTS: ' /docs/ = docs/404.html , /shop=/shop/not found.html,/a=b=c.html',
      ERROR_DOCUMENT: ' /errors/50x.html ',
      CONTENT_TYPE_FROM_EXTENSION: 'off',
      CORS_ALLOW_ORIGINS: 'https://app.example, https://admin.example',
    }).site;
    expect(site).toEqual({
      indexDocument: 'index.html',
      folderRedirect: 308,
      notFoundDocuments: [
        { prefix: '/', key: 'errors/404.html' },
        { prefix: '/docs/', key: 'docs/404.html' },
        { prefix: '/shop', key: 'shop/not found.html' },
        { prefix: '/a', key: 'b=c.html' },
      ],
      errorDocument: 'errors/50x.html',
      contentTypeFromExtension: false,
      corsAllowOrigins: ['https://app.example', 'https://admin.example'],
    });
  });

  it('redirect folders with 301 by default where S3 website hosting would (an S3 origin with INDEX_DOCUMENT)', () => {
    expect(parseConfig({ ...s3Minimal, INDEX_DOCUMENT: 'index.html' }).site.folderRedirect).toBe(301);
    expect(
      parseConfig({ ...s3Minimal, INDEX_DOCUMENT: 'index.html', FOLDER_REDIRECT: 'off' }).site.folderRedirect,
    ).toBe(undefined);
    for (const status of [301, 302, 307, 308] as const)
      expect(
        parseConfig({ ...s3Minimal, INDEX_DOCUMENT: 'index.html', FOLDER_REDIRECT: String(status) }).site
          .folderRedirect,
      ).toBe(status);
  });

  it('leave a site’s folders to the site unless the redirect is asked for, with or without INDEX_DOCUMENT', () => {
    const site = { ORIGIN_KIND: 'http', ORIGIN_URL: 'https://www.example' };
    expect(parseConfig({ ...site, INDEX_DOCUMENT: 'index.html' }).site.folderRedirect).toBeUndefined();
    expect(parseConfig({ ...site, FOLDER_REDIRECT: '301' }).site.folderRedirect).toBe(301);
  });

  it('refuse a folder redirect of another status, or one an S3 origin without INDEX_DOCUMENT cannot make', () => {
    expect(configError({ INDEX_DOCUMENT: 'index.html', FOLDER_REDIRECT: 'on' }).message).toBe(
      'FOLDER_REDIRECT must be one of 301|302|307|308|off, got "on"',
    );
    expect(configError({ INDEX_DOCUMENT: 'index.html', FOLDER_REDIRECT: '303' }).message).toMatch(/^FOLDER_REDIRECT/);
    expect(configError({ FOLDER_REDIRECT: '301' }).message).toBe(
      'FOLDER_REDIRECT needs INDEX_DOCUMENT with ORIGIN_KIND=s3: without it no key is a folder',
    );
  });

  it('refuse 404 pages by prefix that are not prefix=key pairs, or name a prefix twice', () => {
    for (const value of ['docs/=docs/404.html', '/docs/', '/docs/?x=1=a.html', '/do cs/=a.html', '/%zz/=a.html'])
      expect(configError({ NOT_FOUND_DOCUMENTS: value }).message, value).toMatch(
        /^NOT_FOUND_DOCUMENTS must be prefix=key pairs/,
      );
    expect(configError({ NOT_FOUND_DOCUMENTS: '/docs/=' }).message).toBe(
      'NOT_FOUND_DOCUMENTS names no page for "/docs/": write prefix=key',
    );
    expect(configError({ NOT_FOUND_DOCUMENTS: '/docs/=a.html,/docs/=b.html' }).message).toBe(
      'NOT_FOUND_DOCUMENTS names the prefix "/docs/" twice',
    );
    expect(configError({ NOT_FOUND_DOCUMENT: '404.html', NOT_FOUND_DOCUMENTS: '/=other.html' }).message).toBe(
      'NOT_FOUND_DOCUMENTS names the prefix "/" twice (NOT_FOUND_DOCUMENT is the page for "/")',
    );
    expect(configError({ NOT_FOUND_DOCUMENTS: '/docs/=../404.html' }).message).toMatch(
      /^NOT_FOUND_DOCUMENTS must name an object key/,
    );
    expect(configError({ ERROR_DOCUMENT: 'a/../50x.html' }).message).toMatch(/^ERROR_DOCUMENT must name an object key/);
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
