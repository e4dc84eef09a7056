import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePath } from '../../../shared/request/canonical-path.ts';
import { isReserved, RESERVED_PREFIX, resolvedPaths } from '../../../shared/request/reserved-paths.ts';
import { removeDotSegments } from './dot-segments.ts';

describe('isReserved', () => {
  it('reserves every path under /__tiercache/, however it is spelled once parsed', () => {
    for (const path of [
      '/__tiercache/purge',
      '/__tiercache/slices/0-0/1/-/x',
      '/__tiercache',
      '/__tiercache%2Fpurge',
      '/__tiercache%2fx%2F..%2Fpurge',
      '/%5F_tiercache/purge',
    ])
      expect(isReserved(path), path).toBe(true);
  });

  it('leaves every other path to the objects', () => {
    for (const path of [
      '/',
      '/__tiercache-docs/a',
      '/x/__tiercache/purge',
      '/__TIERCACHEX/purge',
      '/a%2F__tiercache/b',
      '/%',
    ])
      expect(isReserved(path), path).toBe(false);
  });

  it('reserves the prefix in any case, as a case-insensitive origin (IIS, a Windows or macOS file system) reads it', () => {
    for (const path of [
      '/__TIERCACHE/purge',
      '/__TierCache/stats',
      '/__Tiercache',
      '/%5F_TIERCACHE/health',
      '/__TIERCACHE%2Fpurge',
      '/x/..%2F__TIERCACHE/purge',
      '//__TierCache/stats.json',
    ])
      expect(isReserved(path), path).toBe(true);
  });

  it('reserves a path that climbs into the prefix once decoded, with dot segments removed (RFC 3986 §5.2.4)', () => {
    const climbing = [
      '/x/..%2F__tiercache/purge',
      '/x/..%2f__tiercache/purge',
      '/x/%2e%2e%2F__tiercache/purge',
      '/x/%2E%2e%2f__tiercache/purge',
      '/x/..%5C__tiercache/purge',
      '/x/..%5c__tiercache%5cpurge',
      '/x%2F..%2F__tiercache/stats',
      '/x/y/..%2F..%2F__tiercache/health',
      '/x/.%2e%2F__tiercache',
      '/x/..%2F__tiercache/purge%C3',
      '/x/..%252F__tiercache/purge',
      '/%255F_tiercache/purge',
      '//__tiercache/purge',
      '/x/..//__tiercache/purge',
      '/x/..;/__tiercache/purge',
      '/x/..%3B%2F__tiercache/purge',
      '/x/..%2F__tiercache//..%2Fpurge',
    ];
    for (const path of climbing) expect(isReserved(path), path).toBe(true);
  });

  it('leaves a path alone whose dots do not climb into the prefix', () => {
    for (const path of [
      '/a/..%2Fb',
      '/x/...%2F__tiercache/purge',
      '/x/__tiercache/..%2Fpurge',
      '/x/a..%2F__tiercache/b',
      '/__tiercache-x/..%2Fa',
    ])
      expect(isReserved(path), path).toBe(false);
  });

  it('checks each path it is given: the one routed and the one forwarded', () => {
    expect(isReserved('/x', '/__tiercache/purge')).toBe(true);
    expect(isReserved('/x', '/y')).toBe(false);
  });
});

// --- properties ---------------------------------------------------------------------------

/** One path separator, as an origin that decodes `%2F` and reads `\\` as `/` (IIS, some gateways) sees it. */
const separator = fc.constantFrom('/', '\\', '%2F', '%2f', '%5C', '%5c', '%252F', '%255C', '//');
const dot = fc.constantFrom('.', '%2E', '%2e', '%252E');
const underscore = fc.constantFrom('_', '%5F', '%5f');
const name = fc.constantFrom('x', 'a.b', 'static', '...', 'img%20s');

/** `/` then segments that climb at least as far as they went down, then the prefix's name: a way into it. */
const intoPrefix = fc
  .tuple(
    fc.array(name, { maxLength: 3 }),
    fc.nat({ max: 2 }),
    fc.array(separator, { minLength: 8, maxLength: 8 }),
    fc.array(dot, { minLength: 12, maxLength: 12 }),
    underscore,
    fc.constantFrom('purge', 'stats', 'x/y', ''),
  )
  .map(([down, extra, seps, dots, under, rest]) => {
    const sep = (i: number): string => seps[i % seps.length] ?? '/';
    let path = '/';
    down.forEach((segment, i) => {
      path += `${segment}${sep(i)}`;
    });
    for (let i = 0; i < down.length + extra; i++) path += `${dots[(2 * i) % 12]}${dots[(2 * i + 1) % 12]}${sep(i + 3)}`;
    return `${path}${under}_tiercache${rest === '' ? '' : `/${rest}`}`;
  });

describe('isReserved (properties)', () => {
  it('recognises every spelling that climbs into the reserved prefix', () => {
    fc.assert(
      fc.property(intoPrefix, (path) => {
        expect(isReserved(path), path).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with RFC 3986 §5.2.4 run on the decoded path: whatever it resolves into the prefix is reserved, as sent and as the worker routes it', () => {
    const piece = fc.constantFrom(
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
      '__tiercache',
      '%5F_tiercache',
      '__TIERCACHE',
      '__TierCache',
      'purge',
      'x',
      '.x',
      '%25',
    );
    const decoded = (path: string): string => {
      let text = path;
      for (let i = 0; i < 3; i++)
        text = text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return text;
    };
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const sent = `/${pieces.join('')}`;
        for (const path of [sent, normalizePath(new URL(`https://cdn.example${sent}`).pathname)]) {
          // Case-folded: a case-insensitive origin reads `/__TIERCACHE/` as the prefix.
          const resolved = removeDotSegments(decoded(path).replace(/[\\/]+/g, '/'))
            .replace(/\/+/g, '/')
            .toLowerCase();
          if (resolved.startsWith(RESERVED_PREFIX) || resolved === RESERVED_PREFIX.slice(0, -1))
            expect(isReserved(path), path).toBe(true);
          if (!decoded(path).toLowerCase().includes('__tiercache')) expect(isReserved(path), path).toBe(false);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('resolvedPaths (properties)', () => {
  it('is RFC 3986 §5.2.4 run on the path decoded three times, `\\` a slash, `;` parameters dropped, with slashes merged before or after, a path with nothing to resolve included', () => {
    const piece = fc.constantFrom(
      '/',
      '//',
      '\\',
      '.',
      '..',
      '%2e',
      '%2F',
      '%5c',
      '%252F',
      ';p',
      '%3B',
      'a',
      'b.c',
      '.x',
      '%25',
      '%C3',
    );
    const segmentsOf = (path: string): string => {
      let text = path;
      for (let i = 0; i < 3; i++)
        text = text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return text
        .replace(/\\/g, '/')
        .split('/')
        .map((segment) => segment.split(';', 1)[0])
        .join('/');
    };
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const path = `/${pieces.join('')}`;
        const joined = segmentsOf(path);
        // Merged first (nginx's merge_slashes, Tomcat), or after (RFC 3986 alone, then the file system).
        const mergedFirst = removeDotSegments(joined.replace(/\/+/g, '/')) || '/';
        const mergedAfter = removeDotSegments(joined).replace(/\/+/g, '/') || '/';
        expect(new Set(resolvedPaths(path)), path).toEqual(new Set([mergedFirst, mergedAfter]));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a path either way where the order matters: `//` (or `;p`) before `..`', () => {
    expect(resolvedPaths('/a/b//..%2Fc')).toEqual(['/a/c', '/a/b/c']);
    expect(resolvedPaths('/a/b/;p/../c')).toEqual(['/a/c', '/a/b/c']);
    expect(resolvedPaths('/a/b/../c')).toEqual(['/a/c']);
    expect(resolvedPaths('/a/b/c.txt')).toEqual(['/a/b/c.txt']);
  });
});
