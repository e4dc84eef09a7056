import { describe, expect, it } from 'vitest';
import { invalidatedUrls } from '../../../shared/http/invalidation.ts';

const target = new URL('https://site.example/posts?page=2');
const hrefs = (status: number, headers: Record<string, string>, method = 'POST') =>
  invalidatedUrls(target, status, new Headers(headers), method).map((url) => url.href);

describe('invalidatedUrls (RFC 9111 §4.4)', () => {
  it('invalidates the target URI after a non-error answer to an unsafe method', () => {
    expect(hrefs(200, {})).toEqual([target.href]);
    expect(hrefs(303, {})).toEqual([target.href]);
  });

  it('invalidates nothing after an error answer', () => {
    expect(hrefs(404, { location: '/x' })).toEqual([]);
    expect(hrefs(500, {})).toEqual([]);
  });

  it('also invalidates Location and Content-Location, resolved against the target', () => {
    expect(hrefs(201, { location: '/posts/7', 'content-location': 'https://site.example/posts/7.json' })).toEqual([
      target.href,
      'https://site.example/posts/7',
      'https://site.example/posts/7.json',
    ]);
  });

  it('never invalidates a URI on another host, or one that does not parse', () => {
    expect(hrefs(201, { location: 'https://other.example/posts/7', 'content-location': 'http://[bad' })).toEqual([
      target.href,
    ]);
  });
  it('invalidates nothing after a safe method, extension methods included (RFC 9110 §9.2.1, RFC 9111 §4.4: unsafe methods only)', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT', 'SEARCH', 'propfind'])
      expect(hrefs(200, {}, method), method).toEqual([]);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'PROPPATCH', 'MKCOL'])
      expect(hrefs(200, {}, method), method).toEqual([target.href]);
  });
});
