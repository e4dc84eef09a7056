import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalPrefix } from '../../../shared/purge/purge-prefix.ts';
import { requestTarget } from '../../../shared/request/request-target.ts';

const prefixOf = (prefix: string, kind: 's3' | 'http', keyQuery: string[] = []): string => {
  const result = canonicalPrefix(prefix, kind, keyQuery);
  if (!result.ok) throw new Error(`expected ${prefix} to be accepted, got: ${result.reason}`);
  return result.prefix;
};
const reasonOf = (prefix: string, kind: 's3' | 'http', keyQuery: string[] = []): string => {
  const result = canonicalPrefix(prefix, kind, keyQuery);
  if (result.ok) throw new Error(`expected ${prefix} to be refused, got ${result.prefix}`);
  return result.reason;
};

describe('canonicalPrefix', () => {
  it("spells an S3 prefix as the keys are (SigV4 UriEncode): + ! ' ( ) *, spaces and non-ASCII encoded", () => {
    expect(prefixOf("/a+b/it's!/(x)*/two words/café/", 's3')).toBe(
      '/a%2Bb/it%27s%21/%28x%29%2A/two%20words/caf%C3%A9/',
    );
    // Any spelling of the same key prefix is the same prefix.
    expect(prefixOf('/a%2bb/caf%c3%a9', 's3')).toBe('/a%2Bb/caf%C3%A9');
    expect(prefixOf('/%7Euser/', 's3')).toBe('/~user/');
  });

  it("spells an HTTP prefix as the URL parser does, RFC 3986 §6.2.2 normalised: + ! ' ( ) * as written", () => {
    expect(prefixOf("/a+b/it's!/(x)*/two words/café/", 'http')).toBe("/a+b/it's!/(x)*/two%20words/caf%C3%A9/");
    expect(prefixOf('/caf%c3%a9/%7euser', 'http')).toBe('/caf%C3%A9/~user');
    expect(prefixOf('/search?q=two words', 'http')).toBe('/search?q=two%20words');
  });

  it('keeps "/" (every path) and never appends an index document', () => {
    expect(prefixOf('/', 's3')).toBe('/');
    expect(prefixOf('/', 'http')).toBe('/');
    expect(prefixOf('/docs/', 's3')).toBe('/docs/');
    // Slashes alone name no object, but begin the paths of keys that start with one (`//a.txt` is the key `/a.txt`).
    expect(prefixOf('//', 's3')).toBe('//');
    expect(reasonOf('//?v=1', 's3', ['v'])).toMatch(/no key is only slashes/);
  });

  it("keeps an S3 prefix's CACHE_KEY_QUERY parameters, sorted as in the cache key", () => {
    expect(prefixOf('/a.txt?w=2&v=1', 's3', ['v', 'w'])).toBe('/a.txt?v=1&w=2');
  });

  it('refuses what no canonical path can start with, saying why', () => {
    expect(reasonOf('/a/%zz', 's3')).toMatch(
      /^expected a prefix a path can start with, got "\/a\/%zz": malformed percent-encoding/,
    );
    expect(reasonOf('/a/%FF', 's3')).toMatch(/not valid UTF-8/);
    expect(reasonOf(`/${'日'.repeat(400)}`, 's3')).toMatch(/at most 1024 UTF-8 bytes/);
    expect(reasonOf('/a/%2E%2E%2Fb', 's3')).toMatch(/"\.\." segment/);
    expect(reasonOf('/a\tb', 'http')).toMatch(/control character/);
    expect(reasonOf('/a#b', 'http')).toMatch(/fragment.*%23/);
    expect(reasonOf('/a.txt?v=1', 's3')).toMatch(/"v" is not in CACHE_KEY_QUERY/);
    expect(reasonOf('/?v=1', 's3', ['v'])).toMatch(/no key is only slashes/);
  });

  it('is a prefix of the canonical path of every path the written prefix begins, in both modes', () => {
    const char = fc.constantFrom(
      'a',
      'Z',
      '0',
      '-',
      '_',
      '~',
      '/',
      ' ',
      '+',
      '!',
      "'",
      '(',
      ')',
      '*',
      '$',
      '&',
      ',',
      ';',
      '=',
      ':',
      '@',
      '"',
      '<',
      '>',
      '^',
      '`',
      '{',
      '|',
      '}',
      '[',
      ']',
      'é',
      '日',
      '😀',
    );
    fc.assert(
      fc.property(
        fc.array(char, { minLength: 1, maxLength: 24 }),
        fc.nat(),
        fc.constantFrom('s3' as const, 'http' as const),
        (chars, cut, kind) => {
          const path = `/${chars.join('')}`;
          const written = `/${chars.slice(0, cut % (chars.length + 1)).join('')}`;
          // Only paths that name an object: not the bucket root nor slashes alone (the URL parser drops trailing
          // spaces: `/ ` is the root).
          const url = new URL(`http://edge.test${path}`);
          fc.pre(kind === 'http' || !/^\/+$/.test(url.pathname));
          const target = requestTarget(url, kind);
          expect(target.path.startsWith(prefixOf(written, kind))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('canonicalPrefix under a rule’s cacheKeyQuery', () => {
  it('takes a query parameter the rule for that path keys, and names the rule’s list for one it does not', () => {
    const rule = (path: string) => (path.startsWith('/img/') ? ['w'] : undefined);
    expect(canonicalPrefix('/img/cat.jpg?w=100', 's3', [], rule)).toEqual({ ok: true, prefix: '/img/cat.jpg?w=100' });
    const refused = canonicalPrefix('/img/cat.jpg?v=1', 's3', [], rule);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toMatch(/"v" is not in the cacheKeyQuery of the rule for this path/);
    // A site's too, where the rule keys fewer parameters than the query as written.
    expect(canonicalPrefix('/search?q=a', 'http', [], () => ['q'])).toEqual({ ok: true, prefix: '/search?q=a' });
    expect(canonicalPrefix('/search?q=a&utm=1', 'http', [], () => ['q']).ok).toBe(false);
    expect(canonicalPrefix('/search?q=a&utm=1', 'http')).toEqual({ ok: true, prefix: '/search?q=a&utm=1' });
  });
});
