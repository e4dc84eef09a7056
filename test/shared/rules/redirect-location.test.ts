import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redirectLocation } from '../../../shared/rules/redirect-location.ts';
import type { RuleRedirect } from '../../../shared/rules/rules.ts';

const redirect = (location: string, fields: Partial<RuleRedirect> & { suffix?: string } = {}) => ({
  status: 301 as const,
  location,
  preservePathSuffix: false,
  preserveQuery: false,
  suffix: '',
  ...fields,
});

describe('redirectLocation', () => {
  it('is the location alone unless the rule carries something over', () => {
    expect(redirectLocation(redirect('/new/', { suffix: 'a/b.html' }), '?x=1')).toBe('/new/');
    expect(redirectLocation(redirect('https://docs.example/'), '?x=1')).toBe('https://docs.example/');
  });

  it('appends the part of the path after the matching `/prefix*`, as it is', () => {
    const moved = redirect('/new/', { preservePathSuffix: true, suffix: 'guide/intro.html' });
    expect(redirectLocation(moved, '')).toBe('/new/guide/intro.html');
    const away = redirect('https://docs.example/v2/', { preservePathSuffix: true, suffix: 'a%20b' });
    expect(redirectLocation(away, '')).toBe('https://docs.example/v2/a%20b');
  });

  it('appends a suffix to a bare origin’s path, `/`', () => {
    const bare = redirect('https://docs.example', { preservePathSuffix: true, suffix: 'x' });
    expect(redirectLocation(bare, '')).toBe('https://docs.example/x');
  });

  it('carries the request’s query over, after the location’s own', () => {
    expect(redirectLocation(redirect('/new', { preserveQuery: true }), '?a=1&b=2')).toBe('/new?a=1&b=2');
    expect(redirectLocation(redirect('/new?lang=en', { preserveQuery: true }), '?a=1')).toBe('/new?lang=en&a=1');
    expect(redirectLocation(redirect('/new?lang=en', { preserveQuery: true }), '')).toBe('/new?lang=en');
    expect(redirectLocation(redirect('/new', { preserveQuery: true }), '?')).toBe('/new');
  });

  it('keeps the location’s fragment last, after the suffix and the query', () => {
    const both = redirect('/new/#top', { preservePathSuffix: true, preserveQuery: true, suffix: 'a' });
    expect(redirectLocation(both, '?q=1')).toBe('/new/a?q=1#top');
  });

  it('never turns a path location into another site: `/` and a suffix `/evil.example` stay a path', () => {
    const root = redirect('/', { preservePathSuffix: true, suffix: '/evil.example/x' });
    expect(redirectLocation(root, '')).toBe('/evil.example/x');
    const backslash = redirect('/', { preservePathSuffix: true, suffix: '\\evil.example' });
    expect(redirectLocation(backslash, '')).toBe('/evil.example');
    // The URL parser drops a tab, which would leave `//`; dot segments removed would too.
    const tab = redirect('/', { preservePathSuffix: true, suffix: '\t/evil.example' });
    expect(redirectLocation(tab, '')).toBe('/evil.example');
    const dots = redirect('/a/', { preservePathSuffix: true, suffix: '../..//evil.example' });
    expect(redirectLocation(dots, '')).toBe('/evil.example');
  });

  it('reads a `?` or `#` in the suffix as part of the path', () => {
    const odd = redirect('/new/', { preservePathSuffix: true, preserveQuery: true, suffix: 'a?b#c' });
    expect(redirectLocation(odd, '?q=1')).toBe('/new/a%3Fb%23c?q=1');
  });

  it('never lets a suffix reach into an absolute location’s authority (`@evil.example`)', () => {
    const bare = redirect('https://docs.example', { preservePathSuffix: true, suffix: '@evil.example/' });
    expect(new URL(redirectLocation(bare, '')).host).toBe('docs.example');
  });

  it('spells the location in ASCII (RFC 9110 §10.2.2: a URI-reference), as a header value must be', () => {
    expect(redirectLocation(redirect('/café/'), '')).toBe('/caf%C3%A9/');
    expect(redirectLocation(redirect('https://bücher.example/ü'), '')).toBe('https://xn--bcher-kva.example/%C3%BC');
  });

  it('for any suffix, a path location stays on this site and an absolute one on its own', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('/', '/new/', '/a', 'https://docs.example', 'https://docs.example/v2/'),
        fc.string(),
        fc.string(),
        (location, suffix, query) => {
          const built = redirectLocation(
            redirect(location, { preservePathSuffix: true, preserveQuery: true, suffix }),
            `?${query}`,
          );
          const base = 'https://this.example/';
          const resolved = new URL(built, base);
          const expected = location.startsWith('/') ? new URL(base).host : new URL(location).host;
          expect(resolved.host).toBe(expected);
          if (location.startsWith('/')) expect(built).toMatch(/^\/(?![/\\])/);
          // The path is what a header value may hold: ASCII without controls (the query is the request's own).
          expect(built.split('?')[0]).toMatch(/^[\x21-\x7e]*$/);
        },
      ),
    );
  });
});
