import { describe, expect, it } from 'vitest';
import type { S3Config } from '../../../shared/config/config.ts';
import { encodeKeyForPath } from '../../../shared/request/object-key.ts';
import { FORWARDED_HEADER_NAMES, type ForwardedHeaders, s3ObjectRequest } from '../../../shield/origin/s3-request.ts';

const pathStyle: S3Config = {
  hostBuckets: new Map(),
  bucket: 'assets',
  region: 'us-east-1',
  accessKeyId: 'AKID',
  secretAccessKey: 'SECRET',
  addressing: 'path',
};
const virtualHosted: S3Config = { ...pathStyle, addressing: 'virtual' };
const awsEndpoint = new URL('https://s3.amazonaws.com');
const localEndpoint = new URL('http://127.0.0.1:4569');

describe('s3ObjectRequest addressing', () => {
  it('puts the bucket in the path for path-style addressing', () => {
    const req = s3ObjectRequest(pathStyle, awsEndpoint, 'img/cat.jpg', 'GET', {});
    expect(req.url.href).toBe('https://s3.amazonaws.com/assets/img/cat.jpg');
    expect(req.headers).toEqual({ host: 's3.amazonaws.com' });
  });

  it('keeps a non-default port in the URL and the host header for path-style addressing', () => {
    const req = s3ObjectRequest(pathStyle, localEndpoint, 'a.txt', 'GET', {});
    expect(req.url.href).toBe('http://127.0.0.1:4569/assets/a.txt');
    expect(req.headers.host).toBe('127.0.0.1:4569');
  });

  it('puts the bucket in the host name for virtual-hosted addressing', () => {
    const req = s3ObjectRequest(virtualHosted, awsEndpoint, 'img/cat.jpg', 'GET', {});
    expect(req.url.href).toBe('https://assets.s3.amazonaws.com/img/cat.jpg');
    expect(req.headers).toEqual({ host: 'assets.s3.amazonaws.com' });
  });

  it('keeps a non-default port for virtual-hosted addressing', () => {
    const req = s3ObjectRequest(virtualHosted, new URL('http://s3.localhost:9000'), 'a.txt', 'HEAD', {});
    expect(req.url.href).toBe('http://assets.s3.localhost:9000/a.txt');
    expect(req.headers.host).toBe('assets.s3.localhost:9000');
    expect(req.method).toBe('HEAD');
  });

  it('leaves a default port out of the host header, as fetch does', () => {
    const req = s3ObjectRequest(pathStyle, new URL('https://s3.example:443'), 'a.txt', 'GET', {});
    expect(req.headers.host).toBe('s3.example');
  });

  it('keeps the endpoint base path, without doubling its trailing slash', () => {
    const endpoint = new URL('https://gw.example/storage/');
    expect(s3ObjectRequest(pathStyle, endpoint, 'a.txt', 'GET', {}).url.pathname).toBe('/storage/assets/a.txt');
    expect(s3ObjectRequest(virtualHosted, endpoint, 'a.txt', 'GET', {}).url.pathname).toBe('/storage/a.txt');
  });

  it("drops the endpoint's query, fragment and credentials", () => {
    const endpoint = new URL('https://user:pw@s3.example/?x-id=1#frag');
    const req = s3ObjectRequest(pathStyle, endpoint, 'a.txt', 'GET', {});
    expect(req.url.href).toBe('https://s3.example/assets/a.txt');
  });
});

describe('s3ObjectRequest keys', () => {
  const keys = ['my file.txt', 'a+b', '~user', '!', "'()*", 'a/b', 'café', '日本', '🐱', '100%', 'q?x=1#frag', 'dir/'];
  for (const key of keys) {
    it(`encodes the key ${JSON.stringify(key)} once, as encodeKeyForPath does, with no query`, () => {
      const req = s3ObjectRequest(pathStyle, awsEndpoint, key, 'GET', {});
      expect(req.url.pathname).toBe(`/assets/${encodeKeyForPath(key)}`);
      expect(req.url.search).toBe('');
      expect(req.url.hash).toBe('');
    });
  }

  it('encodes the characters encodeURIComponent leaves alone', () => {
    const req = s3ObjectRequest(virtualHosted, awsEndpoint, "a b+!'()*~", 'GET', {});
    expect(req.url.pathname).toBe('/a%20b%2B%21%27%28%29%2A~');
  });

  it('refuses an empty key or one with dot segments', () => {
    expect(() => s3ObjectRequest(pathStyle, awsEndpoint, '', 'GET', {})).toThrow(/got an empty one/);
    expect(() => s3ObjectRequest(pathStyle, awsEndpoint, 'a/../b', 'GET', {})).toThrow(/"\.\." segment/);
    expect(() => s3ObjectRequest(pathStyle, awsEndpoint, '.', 'GET', {})).toThrow(/"\." segment/);
  });

  it('never signs a key of only slashes (a bucket request) or one that climbs with backslashes', () => {
    for (const key of ['/', '//'])
      expect(() => s3ObjectRequest(pathStyle, awsEndpoint, key, 'GET', {}), key).toThrow(/only slashes/);
    for (const key of ['..\\..\\etc\\passwd', 'a\\.\\b'])
      expect(() => s3ObjectRequest(pathStyle, awsEndpoint, key, 'GET', {}), key).toThrow(/segment/);
  });
});

describe('s3ObjectRequest headers', () => {
  it('carries each listed conditional header as given', () => {
    const conditional: ForwardedHeaders = {
      range: 'bytes=0-9',
      'if-match': '"abc"',
      'if-none-match': '"def"',
      'if-modified-since': 'Wed, 21 Oct 2015 07:28:00 GMT',
      'if-unmodified-since': 'Thu, 22 Oct 2015 07:28:00 GMT',
    };
    const req = s3ObjectRequest(pathStyle, awsEndpoint, 'a.txt', 'GET', conditional);
    expect(req.headers).toEqual({ host: 's3.amazonaws.com', ...conditional });
  });

  it('carries nothing but host and the listed headers, even if handed more', () => {
    const handedMore = {
      range: 'bytes=5-',
      authorization: 'Bearer client-token',
      cookie: 'session=1',
      'x-amz-server-side-encryption-customer-key': 'k',
      'x-amz-security-token': 't',
      host: 'evil.example',
    };
    const req = s3ObjectRequest(virtualHosted, awsEndpoint, 'a.txt', 'GET', handedMore);
    expect(req.headers).toEqual({ host: 'assets.s3.amazonaws.com', range: 'bytes=5-' });
  });

  it('uses lowercase header names only', () => {
    const req = s3ObjectRequest(pathStyle, awsEndpoint, 'a.txt', 'GET', { range: 'bytes=0-0', 'if-match': '"x"' });
    for (const name of Object.keys(req.headers)) expect(name).toBe(name.toLowerCase());
    expect(FORWARDED_HEADER_NAMES).toEqual([
      'range',
      'if-match',
      'if-none-match',
      'if-modified-since',
      'if-unmodified-since',
    ]);
  });
});

describe('s3ObjectRequest bucket names', () => {
  it('refuses a dotted bucket for virtual-hosted HTTPS, whose wildcard certificate would not match', () => {
    const dotted = { ...virtualHosted, bucket: 'my.assets' };
    expect(() => s3ObjectRequest(dotted, awsEndpoint, 'a.txt', 'GET', {})).toThrow(/contains dots/);
  });

  it('allows a dotted bucket for virtual-hosted plain HTTP and for path-style', () => {
    const dotted = { ...virtualHosted, bucket: 'my.assets' };
    expect(s3ObjectRequest(dotted, new URL('http://s3.example'), 'a', 'GET', {}).url.host).toBe('my.assets.s3.example');
    expect(s3ObjectRequest({ ...dotted, addressing: 'path' }, awsEndpoint, 'a', 'GET', {}).url.pathname).toBe(
      '/my.assets/a',
    );
  });

  it('refuses bucket names that are not DNS labels for virtual-hosted addressing', () => {
    for (const bucket of ['Assets', 'my_assets', 'ab', '-assets', 'assets-', 'a'.repeat(64), '192.168.1.1', 'a..b']) {
      expect(() => s3ObjectRequest({ ...virtualHosted, bucket }, new URL('http://s3.example'), 'a', 'GET', {})).toThrow(
        /S3_BUCKET/,
      );
    }
  });

  it('refuses a path-style bucket that would not be a single path segment', () => {
    for (const bucket of ['a/b', '..', 'a b', 'a%2Fb', '']) {
      expect(() => s3ObjectRequest({ ...pathStyle, bucket }, awsEndpoint, 'a', 'GET', {})).toThrow(/S3_BUCKET/);
    }
  });

  it('accepts a legacy path-style bucket name with uppercase and underscores', () => {
    const req = s3ObjectRequest({ ...pathStyle, bucket: 'Legacy_Bucket' }, awsEndpoint, 'a', 'GET', {});
    expect(req.url.pathname).toBe('/Legacy_Bucket/a');
  });
});
