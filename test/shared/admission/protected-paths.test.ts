import { describe, expect, it } from 'vitest';
import { grants, ProtectedPaths } from '../../../shared/admission/protected-paths.ts';
import type { Scope } from '../../../shared/admission/signed-token.ts';
import type { OriginKind } from '../../../shared/config/config.ts';
import { normalizePath } from '../../../shared/request/canonical-path.ts';
import { requestTarget } from '../../../shared/request/request-target.ts';

/**
 * The canonical path of a request target, as the edge gives it to admission (worker/admission.ts): the target's, or
 * for a key S3 could not hold (a `..` segment, answered 400 later) the parsed path's canonical spelling.
 */
function canonical(target: string, kind: OriginKind): string {
  const url = new URL(`https://cdn.example${target}`);
  try {
    return requestTarget(url, kind).path;
  } catch {
    return normalizePath(url.pathname);
  }
}

/** Every spelling of /private/secret.txt that a lenient origin serves as that file (a review served each from nginx-like origins). */
const INTO_PRIVATE = [
  '/private/secret.txt',
  '//private/secret.txt',
  '/private%2Fsecret.txt',
  '/private%2fsecret.txt',
  '/%2Fprivate/secret.txt',
  '/x/..%2Fprivate/secret.txt',
  '/x/..%2fprivate/secret.txt',
  '/x/..%5Cprivate/secret.txt',
  '/x/..%5cprivate/secret.txt',
  '/x/%2e%2e%2Fprivate/secret.txt',
  '/x/%2E%2E%2fprivate/secret.txt',
  '/x/..%252Fprivate/secret.txt',
  '/x/..;/private/secret.txt',
  // Dot segments removed before the slashes are merged (RFC 3986 alone, nginx without merge_slashes).
  '/y/..%2Fprivate//..%2Fsecret.txt',
  '/private;x/secret.txt',
];

describe('ProtectedPaths.protects', () => {
  it('protects every spelling an http origin may resolve into the prefix: decoded, slashes merged, dots removed', () => {
    const paths = new ProtectedPaths(['/private/'], 'http');
    for (const target of INTO_PRIVATE) expect(paths.protects(canonical(target, 'http')), target).toBe(true);
  });

  it('protects, for an http origin, every case of the prefix: IIS and case-insensitive file systems read them alike', () => {
    const paths = new ProtectedPaths(['/private/'], 'http');
    for (const target of ['/PRIVATE/secret.txt', '/Private/secret.txt', '/x/..%2FPrivate/secret.txt'])
      expect(paths.protects(canonical(target, 'http')), target).toBe(true);
    // A prefix written in capitals protects the lower case too.
    expect(new ProtectedPaths(['/Members/'], 'http').protects('/members/a.html')).toBe(true);
  });

  it('protects in an s3 bucket every key a lenient reading puts under the prefix, and keeps keys case-sensitive', () => {
    const paths = new ProtectedPaths(['/private/'], 's3');
    for (const target of ['/private/secret.txt', '//private/secret.txt', '/%2Fprivate/secret.txt', '/x/..%5Cprivate/a'])
      expect(paths.protects(canonical(target, 's3')), target).toBe(true);
    // S3 keys are case-sensitive: `PRIVATE/secret.txt` is another object, never the protected one.
    expect(paths.protects(canonical('/PRIVATE/secret.txt', 's3'))).toBe(false);
  });

  it('leaves alone every path no reading of which lies under a prefix', () => {
    for (const kind of ['http', 's3'] as const) {
      const paths = new ProtectedPaths(['/private/'], kind);
      for (const target of [
        '/public/a.txt',
        '/privately/a',
        '/private',
        '/x/private/a',
        '/x/..%2Fx/private/a',
        '/a%2Fb',
      ])
        expect(paths.protects(canonical(target, kind)), `${kind} ${target}`).toBe(false);
    }
  });

  it('protects a path when any of the paths it is given lies under a prefix (the folder asked for, the index document served)', () => {
    const paths = new ProtectedPaths(['/members/index'], 's3');
    expect(paths.protects('/members/', '/members/index.html')).toBe(true);
    expect(paths.protects('/members/')).toBe(false);
  });

  it('never protects the tiers’ own paths, in any case: their own tokens guard them', () => {
    const paths = new ProtectedPaths(['/'], 'http');
    for (const path of ['/__tiercache/purge', '/__TIERCACHE/purge', '/__TierCache/stats'])
      expect(paths.protects(path), path).toBe(false);
  });
});

describe('grants', () => {
  const folder: Scope = { kind: 'prefix', path: '/video/ep1/' };
  const one: Scope = { kind: 'path', path: '/video/ep1/seg1.ts' };

  function granted(scope: Scope, target: string, kind: OriginKind): boolean {
    const paths = new ProtectedPaths(['/video/'], kind);
    const scopePath = paths.scopePath(scope);
    expect(scopePath).toBeDefined();
    return grants(scope, scopePath!, canonical(target, kind));
  }

  it('grants a folder every path under it, in every spelling of it', () => {
    for (const kind of ['http', 's3'] as const)
      for (const target of [
        '/video/ep1/seg1.ts',
        '/video/ep1/720p/seg1.ts',
        '/video/%65p1/seg1.ts',
        '/video/ep1/a;b.ts',
      ])
        expect(granted(folder, target, kind), `${kind} ${target}`).toBe(true);
  });

  it('never grants a path that climbs out of the folder once an origin resolves it (..%2F)', () => {
    for (const kind of ['http', 's3'] as const)
      for (const target of [
        '/video/ep1/..%2Fep2/x.ts',
        '/video/ep1/..%2fep2/x.ts',
        '/video/ep1/%2e%2e%2Fep2/x.ts',
        '/video/ep1/..%5Cep2/x.ts',
        '/video/ep1/..%252Fep2/x.ts',
        '/video/ep1/..;/ep2/x.ts',
        '/video/ep1/x/..%2F..%2Fep2/x.ts',
      ])
        expect(granted(folder, target, kind), `${kind} ${target}`).toBe(false);
  });

  it('grants a folder a path whose dots stay inside it', () => {
    expect(granted(folder, '/video/ep1/720p/..%2Fseg1.ts', 'http')).toBe(true);
    expect(granted(folder, '/video/ep1/..%2Fep1/seg1.ts', 'http')).toBe(true);
  });

  it('never grants a folder a path beside it, nor the folder in another case', () => {
    for (const target of ['/video/ep10/x.ts', '/video/ep1', '/video/', '/VIDEO/ep1/x.ts', '/video/ep1/..%2FEP1/x.ts'])
      expect(granted(folder, target, 'http'), target).toBe(false);
  });

  it('grants a path exactly: the one path in every spelling, nothing it could resolve into', () => {
    expect(granted(one, '/video/ep1/seg1.ts', 'http')).toBe(true);
    expect(granted(one, '/video/ep1/seg%31.ts', 'http')).toBe(true);
    for (const target of ['/video/ep1/seg1.ts/', '/video/ep1//seg1.ts', '/video/ep1/x/..%2Fseg1.ts'])
      expect(granted(one, target, 'http'), target).toBe(false);
  });
});
