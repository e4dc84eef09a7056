import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { folderOf, outOfScope, type WarmScope, warmUrl } from '../../../shared/warm/warm-scope.ts';

const SCOPE: WarmScope = { call: new URL('https://cdn.example/__tiercache/warm'), hosts: ['cdn.b.example'] };
const url = (value: string): URL => {
  const parsed = warmUrl(value, SCOPE.call);
  if (parsed === undefined) throw new Error(`no URL: ${value}`);
  return parsed;
};

describe('warmUrl', () => {
  it("resolves a path against the call's URL, an absolute URL as it is, without a fragment", () => {
    expect(url('/a.png').href).toBe('https://cdn.example/a.png');
    expect(url('https://cdn.b.example/x?v=1#frag').href).toBe('https://cdn.b.example/x?v=1');
    expect(warmUrl('seg.ts', new URL('https://cdn.example/video/ep1/'))?.href).toBe(
      'https://cdn.example/video/ep1/seg.ts',
    );
    expect(warmUrl('http://[bad', SCOPE.call)).toBeUndefined();
  });

  it("takes a signed URL's token off: tokens never enter keys, and a warm is admitted by the purge token", () => {
    expect(url('/video/a.ts?tc_token=abc&v=2').href).toBe('https://cdn.example/video/a.ts?v=2');
    expect(url('/video/a.ts?tc_token=abc').href).toBe('https://cdn.example/video/a.ts');
  });
});

describe('outOfScope', () => {
  it("keeps this deployment's hosts: the call's own, and HOST_BUCKETS' names", () => {
    expect(outOfScope(url('/a'), SCOPE)).toBeUndefined();
    expect(outOfScope(url('https://CDN.B.example./a'), SCOPE)).toBeUndefined();
    expect(outOfScope(url('https://elsewhere.example/a'), SCOPE)).toMatch(/another host \(elsewhere\.example\)/);
    expect(outOfScope(url('https://cdn.example:8443/a'), SCOPE)).toMatch(/another host/);
  });

  it('refuses other schemes and URLs carrying credentials', () => {
    expect(outOfScope(url('ftp://cdn.example/a'), SCOPE)).toMatch(/not an http\(s\) URL \(ftp:\)/);
    expect(outOfScope(url('https://u:p@cdn.example/a'), SCOPE)).toMatch(/user:password/);
  });

  it("refuses the tiers' own paths however they are spelled", () => {
    for (const path of ['/__tiercache/purge', '/__TIERCACHE/stats', '/x/..%2F__tiercache/purge', '/%5f_tiercache/warm'])
      expect(outOfScope(url(path), SCOPE), path).toMatch(/keep for themselves/);
  });

  it('keeps an expansion under its prefix, compared canonically', () => {
    expect(outOfScope(url('/video/ep1/a.ts'), SCOPE, '/video/ep1/')).toBeUndefined();
    expect(outOfScope(url('/video/%65p1/a.ts'), SCOPE, '/video/ep1/')).toBeUndefined();
    expect(outOfScope(url('/video/ep10/a.ts'), SCOPE, '/video/ep1/')).toMatch(/outside the prefix \/video\/ep1\//);
    expect(outOfScope(url('/video/ep1/../ep2/a.ts'), SCOPE, '/video/ep1/')).toMatch(/outside the prefix/);
  });

  it('never lets a path under /__tiercache/ through, whatever is around it', () => {
    fc.assert(
      fc.property(fc.webSegment(), fc.webSegment(), (before, after) => {
        return outOfScope(url(`/${before}/../__tiercache/${after}`), SCOPE) !== undefined;
      }),
    );
  });
});

describe('folderOf', () => {
  it("is the playlist's folder", () => {
    expect(folderOf('/video/ep1/index.m3u8')).toBe('/video/ep1/');
    expect(folderOf('/index.m3u8')).toBe('/');
    expect(folderOf('index.m3u8')).toBe('/');
  });
});
