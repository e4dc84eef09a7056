import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../shared/http/errors.ts';
import { normalizePath } from '../../../shared/request/canonical-path.ts';
import { encodeKeyForPath } from '../../../shared/request/object-key.ts';
import { requestTarget } from '../../../shared/request/request-target.ts';

/** The URL as a worker receives it: absolute, parsed by the WHATWG URL parser. */
const url = (pathAndQuery: string): URL => new URL(`https://cdn.example${pathAndQuery}`);

function s3Path(pathAndQuery: string): string {
  return requestTarget(url(pathAndQuery), 's3').path;
}

function thrown(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected an HttpError, nothing was thrown');
}

describe('requestTarget for an S3 origin', () => {
  it('names the object key and its canonical path', () => {
    expect(requestTarget(url('/images/cat.jpg'), 's3')).toEqual({
      path: '/images/cat.jpg',
      query: '',
      key: 'images/cat.jpg',
    });
  });

  it('drops the query entirely, since S3 query parameters select sub-resources', () => {
    expect(requestTarget(url('/a.txt?versionId=3&acl'), 's3')).toEqual({ path: '/a.txt', query: '', key: 'a.txt' });
    expect(requestTarget(url('/a.txt?'), 's3').query).toBe('');
  });

  it('gives every spelling of an unreserved character the same path (RFC 3986 §6.2.2.2)', () => {
    expect(s3Path('/a%7Eb')).toBe('/a~b');
    expect(s3Path('/a%7eb')).toBe('/a~b');
    expect(s3Path('/a~b')).toBe('/a~b');
    expect(s3Path('/%41bc')).toBe('/Abc');
  });

  it('gives a percent-encoded and a raw Unicode key the same path', () => {
    expect(s3Path('/caf%C3%A9')).toBe('/caf%C3%A9');
    expect(s3Path('/caf%c3%a9')).toBe('/caf%C3%A9');
    expect(s3Path('/café')).toBe('/caf%C3%A9');
    expect(requestTarget(url('/café'), 's3').key).toBe('café');
  });

  it('gives a space and %20 the same path', () => {
    expect(s3Path('/my file.txt')).toBe('/my%20file.txt');
    expect(s3Path('/my%20file.txt')).toBe('/my%20file.txt');
  });

  it('encodes the characters SigV4 UriEncode encodes, + included', () => {
    expect(s3Path("/it's(1)*.txt")).toBe('/it%27s%281%29%2A.txt');
    expect(s3Path('/a+b')).toBe('/a%2Bb');
  });

  it('reads an encoded slash as the same key as a plain one, as S3 does', () => {
    expect(requestTarget(url('/a%2Fb'), 's3')).toEqual(requestTarget(url('/a/b'), 's3'));
  });

  it('keeps a key that starts with a slash apart from the same key without it', () => {
    expect(requestTarget(url('//a.txt'), 's3')).toEqual({ path: '//a.txt', query: '', key: '/a.txt' });
  });

  it('answers 404 for the bucket root, which would list the bucket', () => {
    for (const path of ['/', '/?list-type=2', '/a/..', '/a/%2e%2e']) {
      const error = thrown(() => requestTarget(url(path), 's3'));
      expect(error.status, path).toBe(404);
    }
  });

  it('answers 404 for a path of only slashes, which S3-compatible servers read as the bucket', () => {
    for (const path of ['//', '///', '/%2F', '//?list-type=2']) {
      const error = thrown(() => requestTarget(url(path), 's3'));
      expect(error.status, path).toBe(404);
    }
  });

  it('answers 400 for a key that climbs with backslashes, as a filesystem-backed server would read it', () => {
    for (const path of ['/..%5C..%5Cetc%5Cpasswd', '/a%5c..%5c..%5cb', '/a/..%5Cb']) {
      const error = thrown(() => requestTarget(url(path), 's3'));
      expect(error.status, path).toBe(400);
      expect(error.message, path).toMatch(/"\.\." segment/);
    }
  });

  it('answers 400 for malformed percent-encoding', () => {
    const error = thrown(() => requestTarget(url('/%zz'), 's3'));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/malformed percent-encoding/);
  });

  it('answers 400 for percent-encoded bytes that are not UTF-8', () => {
    expect(thrown(() => requestTarget(url('/caf%C3'), 's3')).status).toBe(400);
    expect(thrown(() => requestTarget(url('/%FF'), 's3')).status).toBe(400);
  });

  it('answers 400 for a key with a control character or a dot segment hidden behind %2F', () => {
    expect(thrown(() => requestTarget(url('/a%00b'), 's3')).status).toBe(400);
    expect(thrown(() => requestTarget(url('/a%2F..%2Fb'), 's3')).status).toBe(400);
  });
});

describe('requestTarget for an HTTP origin', () => {
  it('keeps the query as sent and names no key', () => {
    expect(requestTarget(url('/search?q=a%7e&page=2'), 'http')).toEqual({
      path: '/search',
      query: '?q=a%7e&page=2',
      key: undefined,
    });
  });

  it('has an empty query when there is none', () => {
    expect(requestTarget(url('/index.html'), 'http').query).toBe('');
  });

  it('decodes percent-encoded unreserved characters in the path (RFC 3986 §6.2.2.2)', () => {
    expect(requestTarget(url('/a%7Eb/%41%2d%5F%2E'), 'http').path).toBe('/a~b/A-_.');
  });

  it('upper-cases the hex of the remaining percent-encodings (RFC 3986 §6.2.2.1)', () => {
    expect(requestTarget(url('/a%2fb/caf%c3%a9'), 'http').path).toBe('/a%2Fb/caf%C3%A9');
  });

  it('gives a raw Unicode path and its percent-encoded spelling the same path', () => {
    expect(requestTarget(url('/café'), 'http').path).toBe(requestTarget(url('/caf%c3%a9'), 'http').path);
  });

  it('serves the root path', () => {
    expect(requestTarget(url('/'), 'http').path).toBe('/');
  });
});

describe('normalizePath', () => {
  it('leaves a path without percent-encodings unchanged', () => {
    expect(normalizePath('/a/b.txt')).toBe('/a/b.txt');
  });

  it('keeps reserved and non-ASCII octets encoded', () => {
    expect(normalizePath('/%2f%3a%25%20%e2%82%ac')).toBe('/%2F%3A%25%20%E2%82%AC');
  });

  it('does not decode %25 into a new percent-encoding', () => {
    expect(normalizePath('/%2541')).toBe('/%2541');
  });

  it('encodes a stray percent sign as %25, so normalising twice changes nothing', () => {
    expect(normalizePath('/100%/%zz')).toBe('/100%25/%25zz');
    expect(normalizePath('/%4%41')).toBe('/%254A');
    expect(normalizePath(normalizePath('/%4%41'))).toBe('/%254A');
  });

  it('is idempotent for any path, so the shield re-derives exactly what the edge meant', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (raw) => {
        const once = normalizePath(new URL(`http://h/${raw}`).pathname);
        expect(normalizePath(once)).toBe(once);
      }),
    );
  });
});

// --- properties ---------------------------------------------------------------------------

/** Keys S3 can hold and we serve: no controls, no lone surrogates, no dot segments. */
const objectKey = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
  .filter(
    (key) =>
      !/[\u0000-\u001f\u007f]/.test(key) &&
      !/^\/*$/.test(key) &&
      !key.split(/[/\\]/).some((s) => s === '.' || s === '..'),
  );

describe('request target properties', () => {
  it('maps the canonical path of any key back to that key and that same path', () => {
    fc.assert(
      fc.property(objectKey, (key) => {
        const path = `/${encodeKeyForPath(key)}`;
        expect(requestTarget(url(path), 's3')).toEqual({ path, query: '', key });
      }),
    );
  });

  it('gives the same S3 path whether the URL spells the key raw or encoded', () => {
    fc.assert(
      // A raw URL cannot carry ? # % \ as key characters, and the parser strips a trailing space.
      fc.property(
        objectKey.filter((key) => !/[?#%\\]/.test(key) && key.trim() === key),
        (key) => {
          expect(s3Path(`/${key}`)).toBe(`/${encodeKeyForPath(key)}`);
        },
      ),
    );
  });

  it('normalizes a well-formed path to a fixed point, with no unreserved or lower-case encoding left', () => {
    const pctEncoded = fc.integer({ min: 0, max: 255 }).chain((byte) => {
      const hex = byte.toString(16).padStart(2, '0');
      return fc.constantFrom(`%${hex}`, `%${hex.toUpperCase()}`);
    });
    const segment = fc
      .array(fc.oneof(fc.constantFrom('a', 'Z', '9', '-', '.', '_', '~', '!', '$', '@', ':'), pctEncoded), {
        maxLength: 8,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
        const once = normalizePath(`/${segments.join('/')}`);
        expect(normalizePath(once)).toBe(once);
        expect(once).not.toMatch(/%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-Fa-f])/);
        for (const [, hex = ''] of once.matchAll(/%([0-9A-F]{2})/g)) {
          expect(String.fromCharCode(parseInt(hex, 16))).not.toMatch(/[A-Za-z0-9\-._~]/);
        }
      }),
    );
  });
});

describe('requestTarget with an index document (INDEX_DOCUMENT)', () => {
  const indexed = (pathAndQuery: string, kind: 's3' | 'http' = 's3') =>
    requestTarget(url(pathAndQuery), kind, { indexDocument: 'index.html' });

  it('maps the root to the index object, as an S3 website endpoint does', () => {
    expect(indexed('/')).toEqual({ path: '/index.html', query: '', key: 'index.html' });
    expect(indexed('/?list-type=2')).toEqual({ path: '/index.html', query: '', key: 'index.html' });
  });

  it("maps a path ending in / to that folder's index object", () => {
    expect(indexed('/docs/')).toEqual({ path: '/docs/index.html', query: '', key: 'docs/index.html' });
    expect(indexed('/docs/guide/')).toEqual({
      path: '/docs/guide/index.html',
      query: '',
      key: 'docs/guide/index.html',
    });
  });

  it('treats an encoded %2F at the end as the / it is inside the key', () => {
    expect(indexed('/docs%2F').key).toBe('docs/index.html');
    expect(indexed('/docs%2f').key).toBe('docs/index.html');
    expect(indexed('/docs%252F').key).toBe('docs%2F');
  });

  it('leaves paths that name an object alone', () => {
    expect(indexed('/docs')).toEqual({ path: '/docs', query: '', key: 'docs' });
    expect(indexed('/docs/page.html').key).toBe('docs/page.html');
  });

  it('still checks the whole key: dot segments and the key length', () => {
    expect(thrown(() => indexed('/a%2F..%2F')).status).toBe(400);
    expect(thrown(() => indexed(`/${'a'.repeat(1020)}/`)).status).toBe(400);
  });

  it('reads a path of only slashes as a folder like any other: its index object, never the bucket', () => {
    expect(indexed('//')).toEqual({ path: '//index.html', query: '', key: '/index.html' });
  });

  it('leaves paths alone for an HTTP origin, whose site decides what / means', () => {
    expect(indexed('/docs/', 'http')).toEqual({ path: '/docs/', query: '', key: undefined });
    expect(indexed('/', 'http').path).toBe('/');
  });

  it('changes nothing when off: / names no object and dir/ is the literal key', () => {
    expect(thrown(() => requestTarget(url('/'), 's3')).status).toBe(404);
    expect(requestTarget(url('/docs/'), 's3').key).toBe('docs/');
  });
});

describe('requestTarget with CACHE_KEY_QUERY (S3)', () => {
  const keyed = (pathAndQuery: string) => requestTarget(url(pathAndQuery), 's3', { keyQuery: ['v', 'w'] });

  it('keeps only the listed parameters in the cache key, sorted, so their order does not matter', () => {
    expect(keyed('/app.js?w=2&cachebuster=9&v=1').query).toBe('?v=1&w=2');
    expect(keyed('/app.js?v=1&w=2').query).toBe(keyed('/app.js?w=2&v=1').query);
  });

  it('drops every other parameter, so cache-busting query strings cannot force origin fetches', () => {
    expect(keyed('/app.js?list-type=2&acl&x=1').query).toBe('');
  });

  it('keeps the object key unchanged whatever the parameters', () => {
    expect(keyed('/app.js?v=1').key).toBe('app.js');
  });
});

describe('requestTarget with a rule’s cacheKeyQuery (ruleQuery)', () => {
  const url = new URL('https://cdn.example/img/cat.jpg?w=100&utm=x&a=1');

  it('keeps, for S3, the rule’s parameters (or all of them) sorted, in place of CACHE_KEY_QUERY', () => {
    const byRule = (choice: readonly string[] | 'all' | undefined) =>
      requestTarget(url, 's3', { keyQuery: ['a'], ruleQuery: () => choice }).query;
    expect(byRule(['w'])).toBe('?w=100');
    expect(byRule('all')).toBe('?a=1&utm=x&w=100');
    expect(byRule(undefined)).toBe('?a=1');
  });

  it('keeps, for a site, the query as given unless a rule lists parameters: then those alone, sorted', () => {
    expect(requestTarget(url, 'http', { ruleQuery: () => undefined }).query).toBe('?w=100&utm=x&a=1');
    expect(requestTarget(url, 'http', { ruleQuery: () => 'all' }).query).toBe('?w=100&utm=x&a=1');
    expect(requestTarget(url, 'http', { ruleQuery: () => ['w', 'a'] }).query).toBe('?a=1&w=100');
  });

  it('asks the rule for the canonical path the key holds', () => {
    const asked: string[] = [];
    requestTarget(new URL('https://cdn.example/%7Eu/a%20b.txt'), 's3', { ruleQuery: (path) => void asked.push(path) });
    requestTarget(new URL('https://cdn.example/%7Eu/a%20b.txt'), 'http', {
      ruleQuery: (path) => void asked.push(path),
    });
    expect(asked).toEqual(['/~u/a%20b.txt', '/~u/a%20b.txt']);
  });
});
