// Which rules match a request, and what they add up to (shared/rules/rules-match.ts): `*` globs on the canonical path
// checked against a regular-expression oracle, hosts and extensions, and every matching rule applying in order, a
// later one winning a field.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_RULES, NOTHING_APPLIED } from '../../../shared/rules/rules.ts';
import { parseRules } from '../../../shared/rules/rules-document.ts';
import { applyRules, extensionOf, globMatches, hostMatches, hostName } from '../../../shared/rules/rules-match.ts';

const rules = (list: unknown[]) => parseRules(JSON.stringify(list));
const GET = (path: string, host = 'cdn.example.com') => ({ host, path, method: 'GET' });

/** Paths over a small alphabet, so that patterns and paths meet often. */
const pathChars = fc.constantFrom('/', 'a', 'b', '.', '%', '2', 'F');
const path = fc.array(pathChars, { maxLength: 10 }).map((chars) => `/${chars.join('')}`);
const pattern = fc.array(fc.oneof(pathChars, fc.constant('*')), { maxLength: 8 }).map((chars) => `/${chars.join('')}`);

/** The oracle: `*` is `.*` (any run, `/` included), everything else itself. */
function oracle(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 's');
}

describe('globMatches', () => {
  it('agrees with the regular expression `*` → `.*` on any pattern and path', () => {
    fc.assert(
      fc.property(pattern, path, (glob, candidate) => {
        expect(globMatches(glob, candidate)).toBe(oracle(glob).test(candidate));
      }),
      { numRuns: 2000 },
    );
  });

  it('matches with `/p/*` exactly the paths that start with `/p/`, across `/`', () => {
    fc.assert(
      fc.property(path, path, (prefix, candidate) => {
        expect(globMatches(`${prefix}*`, candidate)).toBe(candidate.startsWith(prefix));
        expect(globMatches(`${prefix}*`, `${prefix}${candidate}`)).toBe(true);
      }),
    );
    expect(globMatches('/assets/*', '/assets/js/app.js')).toBe(true);
    expect(globMatches('/assets/*', '/assets')).toBe(false);
  });

  it('matches with a pattern without `*` that path alone', () => {
    fc.assert(
      fc.property(path, path, (glob, candidate) => {
        expect(globMatches(glob, candidate)).toBe(glob === candidate);
        expect(globMatches(glob, glob)).toBe(true);
      }),
    );
  });

  it('matches `a*b` where the path starts with a and ends with b, not overlapping', () => {
    expect(globMatches('/a*.html', '/a.html')).toBe(true);
    expect(globMatches('/a*.html', '/a/b/c.html')).toBe(true);
    expect(globMatches('/ab*ba', '/aba')).toBe(false);
    expect(globMatches('/*/x/*', '/a/x/b')).toBe(true);
    expect(globMatches('/*/x/*', '/a/y/b')).toBe(false);
  });
});

describe('hosts and extensions', () => {
  it('reads the host name alone, lower case, without a port', () => {
    expect(hostName('CDN.Example.com:8443')).toBe('cdn.example.com');
    expect(hostName('[::1]:8787')).toBe('[::1]');
    expect(hostName('example.com')).toBe('example.com');
  });

  it('matches `*.example.com` on its subdomains only, any other host name on itself', () => {
    expect(hostMatches('*.example.com', 'cdn.example.com')).toBe(true);
    expect(hostMatches('*.example.com', 'a.b.example.com')).toBe(true);
    expect(hostMatches('*.example.com', 'example.com')).toBe(false);
    expect(hostMatches('*.example.com', 'badexample.com')).toBe(false);
    expect(hostMatches('example.com', 'example.com')).toBe(true);
    expect(hostMatches('example.com', 'cdn.example.com')).toBe(false);
  });

  it('takes the last segment’s extension, lower case; none for a dotfile, a trailing dot or no dot', () => {
    expect(extensionOf('/a/b/Page.HTML')).toBe('html');
    expect(extensionOf('/a.b/c')).toBeUndefined();
    expect(extensionOf('/.env')).toBeUndefined();
    expect(extensionOf('/a.')).toBeUndefined();
    expect(extensionOf('/archive.tar.gz')).toBe('gz');
  });

  it('matches a rule on host, extension and method together, each given field having to match', () => {
    const list = rules([{ name: 'r', match: { host: '*.example.com', extension: ['html', 'htm'] }, edgeTtl: 60 }]);
    expect(applyRules(list, GET('/a.html')).matched).toEqual(['r']);
    expect(applyRules(list, GET('/a.HTM')).matched).toEqual(['r']);
    expect(applyRules(list, GET('/a.js')).matched).toEqual([]);
    expect(applyRules(list, GET('/a.html', 'example.org')).matched).toEqual([]);
    const byMethod = rules([{ name: 'm', match: { method: 'HEAD' }, bypass: true }]);
    expect(applyRules(byMethod, { host: 'h', path: '/x', method: 'HEAD' }).bypassRule).toBe('m');
    expect(applyRules(byMethod, GET('/x')).bypass).toBe(false);
  });
});

describe('applyRules', () => {
  it('applies nothing without rules, or when none matches', () => {
    expect(applyRules(NO_RULES, GET('/x'))).toBe(NOTHING_APPLIED);
    expect(applyRules(rules([{ name: 'a', match: { path: '/a/*' }, edgeTtl: 1 }]), GET('/b/c'))).toBe(NOTHING_APPLIED);
  });

  it('applies every matching rule in order, a later one winning each field it gives, the rest kept', () => {
    const list = rules([
      { name: 'all', edgeTtl: 3600, staleIfError: 86_400, cacheKeyQuery: ['v'] },
      { name: 'html', match: { extension: 'html' }, edgeTtl: 60, staleWhileRevalidate: 30 },
      { name: 'nothing', match: { path: '/never' }, edgeTtl: 1 },
    ]);
    const applied = applyRules(list, GET('/index.html'));
    expect(applied.matched).toEqual(['all', 'html']);
    expect(applied.freshness).toEqual({ ttl: 60, staleIfError: 86_400, staleWhileRevalidate: 30, rule: 'html' });
    expect(applied.cacheKeyQuery).toEqual(['v']);
    expect(applyRules(list, GET('/app.js')).freshness).toEqual({ ttl: 3600, staleIfError: 86_400, rule: 'all' });
  });

  it('lets a later rule turn an earlier bypass off, and names the rule that bypasses', () => {
    const list = rules([
      { name: 'api', match: { path: '/api/*' }, bypass: true },
      { name: 'public', match: { path: '/api/public/*' }, bypass: false },
    ]);
    expect(applyRules(list, GET('/api/me'))).toMatchObject({ bypass: true, bypassRule: 'api' });
    const open = applyRules(list, GET('/api/public/list'));
    expect(open.bypass).toBe(false);
    expect(open.bypassRule).toBeUndefined();
  });

  it('gives the last matching rule a field, whatever the order of the others (a property)', () => {
    const ttl = fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined });
    fc.assert(
      fc.property(fc.array(fc.record({ ttl, matches: fc.boolean() }), { maxLength: 6 }), (specs) => {
        const list = rules(
          specs.map((spec, i) => ({
            name: `r${i}`,
            match: { path: spec.matches ? '/x' : '/y' },
            ...(spec.ttl === undefined ? { staleIfError: 1 } : { edgeTtl: spec.ttl }),
          })),
        );
        const applied = applyRules(list, GET('/x'));
        const matching = specs.map((spec, i) => ({ ...spec, i })).filter((spec) => spec.matches);
        expect(applied.matched).toEqual(matching.map((spec) => `r${spec.i}`));
        expect(applied.freshness?.ttl).toBe(matching.filter((spec) => spec.ttl !== undefined).at(-1)?.ttl);
        expect(applied.freshness?.rule).toBe(matching.length === 0 ? undefined : `r${matching.at(-1)?.i}`);
      }),
    );
  });

  it('matches the canonical path: a pattern written with %7E matches the ~ every spelling becomes', () => {
    const list = rules([{ name: 'home', match: { path: '/%7Euser/*' }, edgeTtl: 60 }]);
    expect(applyRules(list, GET('/~user/a')).matched).toEqual(['home']);
  });
});
