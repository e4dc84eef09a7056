import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeKeyForPath, MAX_KEY_BYTES, objectKeyFromPath } from '../../../shared/request/object-key.ts';

/** The pathname a browser or fetch would send for a raw path, so tests use real parser output. */
function pathnameOf(path: string): string {
  return new URL(path, 'https://cdn.example').pathname;
}

function keyOf(pathname: string): string {
  const result = objectKeyFromPath(pathname);
  if (!result.ok) throw new Error(`expected a key for ${pathname}, got: ${result.reason}`);
  return result.key;
}

function reasonFor(pathname: string): string {
  const result = objectKeyFromPath(pathname);
  if (result.ok) throw new Error(`expected ${pathname} to be rejected, got key ${JSON.stringify(result.key)}`);
  return result.reason;
}

describe('objectKeyFromPath', () => {
  it('strips the leading slash and keeps a plain key as is', () => {
    expect(keyOf('/images/cat.jpg')).toBe('images/cat.jpg');
  });

  it('decodes a space', () => {
    expect(keyOf(pathnameOf('/my file.txt'))).toBe('my file.txt');
  });

  it('decodes Unicode keys as UTF-8', () => {
    expect(keyOf(pathnameOf('/café.txt'))).toBe('café.txt');
    expect(keyOf(pathnameOf('/日本/語.txt'))).toBe('日本/語.txt');
    expect(keyOf(pathnameOf('/🐱.png'))).toBe('🐱.png');
  });

  it('keeps + as a literal plus, not a space', () => {
    expect(keyOf('/a+b')).toBe('a+b');
    expect(keyOf('/a%2Bb')).toBe('a+b');
  });

  it("keeps ~ ! ' ( ) * as themselves", () => {
    expect(keyOf(pathnameOf("/~user/!'()*"))).toBe("~user/!'()*");
  });

  it('decodes %2F to a slash inside the key', () => {
    expect(keyOf('/a%2Fb')).toBe('a/b');
  });

  it('decodes percent-encoded bytes in either hex case', () => {
    expect(keyOf('/%41%62%63')).toBe('Abc');
    expect(keyOf('/caf%c3%a9')).toBe('café');
  });

  it('accepts a key ending in a slash', () => {
    expect(keyOf('/folder/')).toBe('folder/');
  });

  it('rejects the empty key, which would list the bucket', () => {
    expect(reasonFor('/')).toMatch(/empty path/);
    expect(reasonFor('')).toMatch(/starting with "\/"/);
  });

  it('rejects .. spelled %2E%2E', () => {
    expect(reasonFor('/a/%2E%2E')).toMatch(/"\.\." segment/);
    expect(reasonFor('/%2e')).toMatch(/"\." segment/);
  });

  it('rejects .. hidden between encoded slashes', () => {
    expect(reasonFor('/a%2F..%2Fb')).toMatch(/"\.\." segment/);
    expect(reasonFor('/a%2F.%2Fb')).toMatch(/"\." segment/);
  });

  it('rejects a key of only slashes, which S3-compatible servers read as the bucket itself (a listing)', () => {
    for (const path of ['//', '///', '/%2F', '/%2f%2F/']) expect(reasonFor(path), path).toMatch(/only slashes/);
  });

  it('reads a backslash as a separator when deciding whether a key climbs, as filesystem-backed servers and gateways do', () => {
    expect(reasonFor('/..%5C..%5Cetc%5Cpasswd')).toMatch(/"\.\." segment/);
    expect(reasonFor('/a%5c..%5cb')).toMatch(/"\.\." segment/);
    expect(reasonFor('/a%5C.%5Cb')).toMatch(/"\." segment/);
    expect(reasonFor('/a/..%5C')).toMatch(/"\.\." segment/);
  });

  it('keeps a backslash that is not beside a dot segment, as S3 stores it', () => {
    expect(keyOf('/dir%5Cfile.txt')).toBe('dir\\file.txt');
    expect(keyOf('/a%5C...%5Cb')).toBe('a\\...\\b');
  });

  it('accepts dots that are not a whole segment', () => {
    expect(keyOf('/a/...')).toBe('a/...');
    expect(keyOf('/.hidden/..x')).toBe('.hidden/..x');
  });

  it('rejects malformed percent-encoding', () => {
    expect(reasonFor('/%zz')).toBe('malformed percent-encoding in the path (expected "%" and two hex digits)');
    expect(reasonFor('/a%')).toMatch(/malformed/);
    expect(reasonFor('/a%4')).toMatch(/malformed/);
  });

  it('rejects bytes that are not valid UTF-8', () => {
    expect(reasonFor('/%FF')).toMatch(/not valid UTF-8/);
    expect(reasonFor('/%C3')).toMatch(/not valid UTF-8/);
    expect(reasonFor('/%C0%AF')).toMatch(/not valid UTF-8/); // overlong '/'
    expect(reasonFor('/%ED%A0%80')).toMatch(/not valid UTF-8/); // encoded surrogate
  });

  it('rejects control characters, encoded or not', () => {
    expect(reasonFor('/a%00b')).toMatch(/control characters/);
    expect(reasonFor('/a%0Ab')).toMatch(/control characters/);
    expect(reasonFor('/a%1Fb')).toMatch(/control characters/);
    expect(reasonFor('/a%7Fb')).toMatch(/control characters/);
    expect(reasonFor('/a\tb')).toMatch(/control characters/);
  });

  it('accepts a key of exactly 1024 UTF-8 bytes and rejects one byte more', () => {
    expect(keyOf(`/${'a'.repeat(MAX_KEY_BYTES)}`)).toHaveLength(MAX_KEY_BYTES);
    expect(reasonFor(`/${'a'.repeat(MAX_KEY_BYTES + 1)}`)).toMatch(/at most 1024 UTF-8 bytes, got 1025/);
  });

  it('counts the key length in UTF-8 bytes, not characters', () => {
    // 'é' is 2 bytes: 513 of them is 1026 bytes in only 513 characters.
    expect(reasonFor(`/${'%C3%A9'.repeat(513)}`)).toMatch(/got 1026/);
  });
});

describe('encodeKeyForPath', () => {
  it('percent-encodes a space as %20 and + as %2B', () => {
    expect(encodeKeyForPath('a b+c')).toBe('a%20b%2Bc');
  });

  it('keeps unreserved characters and slashes', () => {
    expect(encodeKeyForPath('AZaz09-._~/x/')).toBe('AZaz09-._~/x/');
  });

  it("encodes ! ' ( ) * as S3's UriEncode does", () => {
    expect(encodeKeyForPath("!'()*")).toBe('%21%27%28%29%2A');
  });

  it('encodes Unicode as uppercase UTF-8 bytes', () => {
    expect(encodeKeyForPath('é')).toBe('%C3%A9');
    expect(encodeKeyForPath('日本')).toBe('%E6%97%A5%E6%9C%AC');
    expect(encodeKeyForPath('🐱')).toBe('%F0%9F%90%B1');
  });

  it('encodes a percent sign so the key is not decoded twice', () => {
    expect(encodeKeyForPath('100%25')).toBe('100%2525');
  });

  it("matches the local S3 server: encodeURIComponent per segment plus !'()*", () => {
    const rfc3986 = (segment: string) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
    const key = "dir/a b+c~!'()*é日本🐱%/ end/";
    expect(encodeKeyForPath(key)).toBe(key.split('/').map(rfc3986).join('/'));
  });
});

// Keys built from the characters most likely to be mishandled, mixed with any code point.
const AWKWARD = ['/', '.', '%', '+', ' ', '~', '!', "'", '(', ')', '*', '?', '#', '&', '=', 'é', '日', '🐱', '\u00A0'];
const keyChar = fc.oneof(fc.constantFrom(...AWKWARD), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
const validKey = fc
  .string({ unit: keyChar, minLength: 1, maxLength: 60 })
  .filter((k) => !/[\u0000-\u001F\u007F]/.test(k))
  .filter((k) => !/^\/*$/.test(k))
  .filter((k) => !k.split(/[/\\]/).some((segment) => segment === '.' || segment === '..'));

/** Paths built from the pieces that spell separators, dots and encodings, in any order. */
const HOSTILE_PIECES = [
  '/',
  '\\',
  '.',
  '..',
  '%2e',
  '%2E',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '%25',
  'a',
  'etc',
  '%00',
  'é',
  '%C3%A9',
];
const hostilePath = fc
  .array(fc.constantFrom(...HOSTILE_PIECES), { maxLength: 12 })
  .map((pieces) => `/${pieces.join('')}`);

describe('objectKeyFromPath and encodeKeyForPath (properties)', () => {
  it('objectKeyFromPath never throws, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: keyChar }).map((s) => `/${s}`),
        ),
        (path) => {
          objectKeyFromPath(path);
        },
      ),
    );
  });

  it('a valid key survives encoding and decoding unchanged', () => {
    fc.assert(
      fc.property(validKey, (key) => {
        expect(objectKeyFromPath(`/${encodeKeyForPath(key)}`)).toEqual({ ok: true, key });
      }),
    );
  });

  it('an encoded key survives the URL parser unchanged', () => {
    fc.assert(
      fc.property(validKey, (key) => {
        const path = `/${encodeKeyForPath(key)}`;
        expect(new URL(`https://s3.example${path}`).pathname).toBe(path);
      }),
    );
  });

  it('never decides a key that is empty, only slashes, or climbs under "/" or "\\"', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostilePath,
          hostilePath.map((path) => new URL(`https://cdn.example${path}`).pathname),
        ),
        (path) => {
          const result = objectKeyFromPath(path);
          if (!result.ok) return;
          expect(result.key).not.toMatch(/^\/*$/);
          expect(result.key.split(/[/\\]/)).not.toContain('..');
          expect(result.key.split(/[/\\]/)).not.toContain('.');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('encodeKeyForPath only ever outputs unreserved characters, slashes and %XX', () => {
    fc.assert(
      fc.property(fc.string({ unit: keyChar }), (key) => {
        expect(encodeKeyForPath(key)).toMatch(/^(?:[A-Za-z0-9\-._~/]|%[0-9A-F]{2})*$/);
      }),
    );
  });
});
