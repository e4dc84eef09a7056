import { describe, expect, it } from 'vitest';
import { type Config, parseConfig } from '../../../shared/config/config.ts';
import { originBasePath, originRelative, originUrlFor } from '../../../shield/origin/origin-url.ts';

/** A site origin's configuration: only its URL matters to these functions. */
function configAt(originUrl: string): Config {
  return parseConfig({ ORIGIN_KIND: 'http', ORIGIN_URL: originUrl });
}

describe('originBasePath', () => {
  it('is empty for an origin at its root, with or without the slash', () => {
    expect(originBasePath(new URL('https://origin.example'))).toBe('');
    expect(originBasePath(new URL('https://origin.example/'))).toBe('');
  });

  it('is the path without its trailing slashes', () => {
    expect(originBasePath(new URL('https://origin.example/site'))).toBe('/site');
    expect(originBasePath(new URL('https://origin.example/site/'))).toBe('/site');
    expect(originBasePath(new URL('https://origin.example/a/b//'))).toBe('/a/b');
  });
});

describe('originUrlFor', () => {
  it("puts the target's path and query below the base path", () => {
    const target = { path: '/img/a.png', query: '?v=1', key: undefined };
    expect(originUrlFor(configAt('https://origin.example/site/'), target).href).toBe(
      'https://origin.example/site/img/a.png?v=1',
    );
    expect(originUrlFor(configAt('https://origin.example'), target).href).toBe('https://origin.example/img/a.png?v=1');
  });
});

describe('originRelative', () => {
  it('takes the base path off a path below it, and leaves any other path as it is', () => {
    const config = configAt('https://origin.example/site/');
    expect(originRelative(config, '/site/img/a.png')).toBe('/img/a.png');
    expect(originRelative(config, '/sitemap.xml')).toBe('/sitemap.xml');
    expect(originRelative(configAt('https://origin.example'), '/site/a')).toBe('/site/a');
  });
});
