import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cacheStatusMember } from '../../../shared/http/cache-status.ts';
import { requestTarget } from '../../../shared/request/request-target.ts';
import {
  folderLocation,
  folderOf,
  isOwnServerError,
  notFoundPageFor,
  notFoundPages,
  redirectCacheControl,
} from '../../../shared/request/site-documents.ts';

const shield = (params: Parameters<typeof cacheStatusMember>[1]): string =>
  cacheStatusMember('tiercache-shield', params);
const edge = (params: Parameters<typeof cacheStatusMember>[1]): string => cacheStatusMember('tiercache-edge', params);

describe('folderOf: the slash form of a path that names no folder', () => {
  it('adds the slash to a path without one', () => {
    expect(folderOf('/docs')).toBe('/docs/');
    expect(folderOf('/a/b/c')).toBe('/a/b/c/');
    expect(folderOf('/v1.2')).toBe('/v1.2/');
    expect(folderOf('/caf%C3%A9')).toBe('/caf%C3%A9/');
  });

  it('has none for the root and for a path that ends in a slash already', () => {
    expect(folderOf('/')).toBeUndefined();
    expect(folderOf('/docs/')).toBeUndefined();
    expect(folderOf('')).toBeUndefined();
  });

  it('has none for a path whose slash form would name another host (RFC 3986 §4.2)', () => {
    expect(folderOf('//evil.example')).toBeUndefined();
    expect(folderOf('/\\evil.example')).toBeUndefined();
    expect(folderOf('evil.example')).toBeUndefined();
  });

  it('is, for every path, a path of this host ending in one slash more, or nothing', () => {
    fc.assert(
      fc.property(fc.string(), (path) => {
        const folder = folderOf(path);
        if (folder === undefined) return;
        expect(folder).toBe(`${path}/`);
        // As a browser resolves a Location: the same host, the same path plus its slash.
        const resolved = new URL(folder, 'https://cdn.example/x/y');
        expect(resolved.host).toBe('cdn.example');
      }),
    );
  });

  it('names, for every key without a slash at its end, the path its index document is served at (INDEX_DOCUMENT)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9_~-][a-z0-9._~-]{0,11}(\/[a-z0-9_~-][a-z0-9._~-]{0,11}){0,3}$/), (key) => {
        const path = requestTarget(new URL(`https://cdn.example/${key}`), 's3').path;
        const folder = folderOf(path);
        expect(folder).toBeDefined();
        const index = requestTarget(new URL(folder ?? '', 'https://cdn.example'), 's3', {
          indexDocument: 'index.html',
        });
        expect(index.key).toBe(`${key}/index.html`);
      }),
    );
  });
});

describe('folderLocation', () => {
  it('keeps the query as the client sent it, a signed URL’s token included', () => {
    expect(folderLocation('/docs/', '')).toBe('/docs/');
    expect(folderLocation('/docs/', '?a=1&b=2')).toBe('/docs/?a=1&b=2');
    expect(folderLocation('/v/ep1/', '?tc_prefix=%2Fv%2Fep1%2F&tc_exp=9&tc_sig=x')).toBe(
      '/v/ep1/?tc_prefix=%2Fv%2Fep1%2F&tc_exp=9&tc_sig=x',
    );
  });
});

describe('redirectCacheControl: a redirect is kept as long as the 404 it stands for', () => {
  it('says NEGATIVE_TTL’s freshness when the 404 says none of its own', () => {
    expect(redirectCacheControl({ cacheControl: null, expires: null }, 60)).toBe('max-age=60');
    expect(redirectCacheControl({ cacheControl: null, expires: null }, 0)).toBe('max-age=0');
  });

  it('adds nothing where the 404 says its own (its Cache-Control or Expires is kept)', () => {
    expect(redirectCacheControl({ cacheControl: 'max-age=5', expires: null }, 60)).toBeUndefined();
    expect(redirectCacheControl({ cacheControl: 'no-store', expires: null }, 60)).toBeUndefined();
    expect(redirectCacheControl({ cacheControl: null, expires: 'Thu, 01 Jan 1970 00:00:00 GMT' }, 60)).toBeUndefined();
  });
});

describe('notFoundPages and notFoundPageFor: the longest matching prefix’s page', () => {
  const pages = notFoundPages(
    [
      { prefix: '/', key: '404.html' },
      { prefix: '/docs/', key: 'docs/404.html' },
      { prefix: '/docs/api/', key: 'docs/api/404.html' },
      { prefix: '/caf%c3%a9/', key: 'cafe/404.html' },
      { prefix: '/shop', key: 'shop/404.html' },
    ],
    's3',
  );

  it('orders the prefixes longest first, each in its canonical spelling', () => {
    expect(pages.map((page) => page.prefix)).toEqual(['/caf%C3%A9/', '/docs/api/', '/docs/', '/shop', '/']);
  });

  it('answers each path with its longest matching prefix’s page', () => {
    expect(notFoundPageFor('/docs/api/v2/x.html', pages)).toBe('docs/api/404.html');
    expect(notFoundPageFor('/docs/guide.html', pages)).toBe('docs/404.html');
    expect(notFoundPageFor('/docs/', pages)).toBe('docs/404.html');
    expect(notFoundPageFor('/caf%C3%A9/menu', pages)).toBe('cafe/404.html');
    expect(notFoundPageFor('/other', pages)).toBe('404.html');
  });

  it('compares prefixes as strings on the canonical path, as purge and signed prefixes are', () => {
    expect(notFoundPageFor('/docs', pages)).toBe('404.html');
    expect(notFoundPageFor('/shop', pages)).toBe('shop/404.html');
    expect(notFoundPageFor('/shopping/cart', pages)).toBe('shop/404.html');
  });

  it('has no page for a path no prefix covers', () => {
    const some = notFoundPages([{ prefix: '/docs/', key: 'docs/404.html' }], 's3');
    expect(notFoundPageFor('/blog/x', some)).toBeUndefined();
    expect(notFoundPageFor('/x', [])).toBeUndefined();
  });

  it('keeps the first written of two prefixes that read as one', () => {
    const twice = notFoundPages(
      [
        { prefix: '/%7Euser/', key: 'first.html' },
        { prefix: '/~user/', key: 'second.html' },
      ],
      'http',
    );
    expect(notFoundPageFor('/~user/x', twice)).toBe('first.html');
  });

  it('for every path, answers with a prefix it starts with, and no longer one matches', () => {
    const prefix = fc.stringMatching(/^\/([a-c]{1,2}\/){0,3}[a-c]{0,2}$/);
    fc.assert(
      fc.property(fc.uniqueArray(prefix, { maxLength: 6 }), fc.stringMatching(/^\/[a-c/]{0,10}$/), (list, path) => {
        const ordered = notFoundPages(
          list.map((p) => ({ prefix: p, key: `key-of${p}` })),
          'http',
        );
        const key = notFoundPageFor(path, ordered);
        const matching = list.filter((p) => path.startsWith(p));
        const longest = Math.max(...matching.map((p) => p.length));
        expect(key).toBe(matching.length === 0 ? undefined : `key-of${matching.find((p) => p.length === longest)}`);
      }),
    );
  });
});

describe('isOwnServerError: a 5xx of ours, never an origin’s own page', () => {
  it('is no error below 500 or above 599', () => {
    for (const status of [200, 304, 404, 499, 600])
      expect(isOwnServerError(status, edge({ detail: 'origin-unreachable' }), false), String(status)).toBe(false);
  });

  it('is every 5xx in front of an origin whose answers never pass (S3: its XML is replaced by our text)', () => {
    for (const status of [500, 502, 503, 504])
      expect(isOwnServerError(status, `${shield({ fwd: 'uri-miss', fwdStatus: status })}`, false)).toBe(true);
    expect(isOwnServerError(502, null, false)).toBe(true);
  });

  it('is, in front of a site, a tier cut off from its next hop (RFC 9111 §4.2.4)', () => {
    const unreachable = `${shield({ fwd: 'uri-miss', detail: 'origin-unreachable' })}, ${edge({ fwd: 'uri-miss', fwdStatus: 502 })}`;
    expect(isOwnServerError(502, unreachable, true)).toBe(true);
    const timeout = `${shield({ fwd: 'uri-miss', detail: 'origin-timeout' })}, ${edge({ fwd: 'uri-miss', fwdStatus: 504 })}`;
    expect(isOwnServerError(504, timeout, true)).toBe(true);
    expect(isOwnServerError(502, edge({ fwd: 'uri-miss', detail: 'shield-unreachable' }), true)).toBe(true);
    expect(isOwnServerError(502, edge({ fwd: 'uri-miss', detail: 'rule:x origin-unreachable' }), true)).toBe(true);
  });

  it('is, in front of a site, an error a tier answered itself', () => {
    expect(isOwnServerError(500, edge({ detail: 'refused' }), true)).toBe(true);
    expect(isOwnServerError(503, shield({ fwd: 'uri-miss', detail: 'held-bodies-full' }), true)).toBe(true);
  });

  it('is never the 504 a client asking only-if-cached gets (RFC 9111 §5.2.1.7): the answer it asked for', () => {
    for (const passes of [true, false])
      expect(isOwnServerError(504, edge({ detail: 'only-if-cached' }), passes), String(passes)).toBe(false);
  });

  it('is never a site’s own 5xx, passed on as it sent it', () => {
    const passed = `${shield({ fwd: 'uri-miss', fwdStatus: 503 })}, ${edge({ fwd: 'uri-miss', fwdStatus: 503 })}`;
    expect(isOwnServerError(503, passed, true)).toBe(false);
    const bypassed = `${shield({ fwd: 'bypass', detail: 'rule:live' })}, ${edge({ fwd: 'bypass', detail: 'rule:live' })}`;
    expect(isOwnServerError(500, bypassed, true)).toBe(false);
    expect(isOwnServerError(502, null, true)).toBe(false);
  });
});
