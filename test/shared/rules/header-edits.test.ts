import { describe, expect, it } from 'vitest';
import type { ClientRules } from '../../../shared/rules/client-rules.ts';
import { editAnswerHeaders, editHeaders, takesBrowserCacheControl } from '../../../shared/rules/header-edits.ts';
import type { HeaderEdits } from '../../../shared/rules/rules.ts';

const NO_EDITS: HeaderEdits = { set: [], add: [], remove: [] };

const client = (fields: Partial<ClientRules>): ClientRules => ({
  browserCacheControl: undefined,
  headers: NO_EDITS,
  editsHeaders: fields.headers !== undefined,
  redirect: undefined,
  spaFallback: undefined,
  ...fields,
});

describe('editHeaders', () => {
  it('removes, then sets, then adds: a removal acts on the tiers’ answer, never on what a rule set', () => {
    const headers = new Headers({ server: 'AmazonS3', 'x-amz-request-id': 'r1', 'x-frame-options': 'ALLOW' });
    editHeaders(headers, {
      set: [
        ['x-frame-options', 'DENY'],
        ['x-served-by', 'edge'],
      ],
      add: [['link', '</a.css>; rel=preload']],
      remove: ['server', 'x-amz-request-id', 'x-served-by'],
    });
    expect([...headers]).toEqual([
      ['link', '</a.css>; rel=preload'],
      ['x-frame-options', 'DENY'],
      ['x-served-by', 'edge'],
    ]);
  });

  it('lets a later rule’s set of a field win over an earlier one’s', () => {
    const headers = new Headers();
    editHeaders(headers, {
      ...NO_EDITS,
      set: [
        ['x-frame-options', 'SAMEORIGIN'],
        ['x-frame-options', 'DENY'],
      ],
    });
    expect(headers.get('x-frame-options')).toBe('DENY');
  });

  it('appends an added field line to what is there (RFC 9110 §5.3: combined with a comma)', () => {
    const headers = new Headers({ vary: 'Accept-Encoding' });
    editHeaders(headers, { ...NO_EDITS, add: [['vary', 'Origin']] });
    expect(headers.get('vary')).toBe('Accept-Encoding, Origin');
  });

  it('leaves headers alone with no edits', () => {
    const headers = new Headers({ etag: '"1"' });
    editHeaders(headers, NO_EDITS);
    expect([...headers]).toEqual([['etag', '"1"']]);
  });
});

describe('takesBrowserCacheControl', () => {
  it('is a 2xx or a 304 to GET or HEAD (RFC 9110 §15.4.5: a 304 carries the 200’s Cache-Control)', () => {
    for (const status of [200, 203, 204, 206, 304]) {
      expect(takesBrowserCacheControl('GET', status), `GET ${status}`).toBe(true);
      expect(takesBrowserCacheControl('HEAD', status), `HEAD ${status}`).toBe(true);
    }
  });

  it('is never an error, a redirect, or an answer to another method', () => {
    for (const status of [301, 302, 400, 403, 404, 412, 416, 500, 502, 503]) {
      expect(takesBrowserCacheControl('GET', status), `GET ${status}`).toBe(false);
    }
    for (const method of ['OPTIONS', 'POST', 'PUT', 'DELETE']) {
      expect(takesBrowserCacheControl(method, 200), method).toBe(false);
    }
  });
});

describe('editAnswerHeaders', () => {
  const immutable = 'public, max-age=31536000, immutable';

  it('puts the browser Cache-Control in place of the stored one on a 200, and keeps Age', () => {
    const headers = new Headers({ 'cache-control': 'max-age=600', age: '42' });
    editAnswerHeaders(headers, client({ browserCacheControl: immutable }), 'GET', 200);
    expect(headers.get('cache-control')).toBe(immutable);
    expect(headers.get('age')).toBe('42');
  });

  it('leaves an error’s Cache-Control as it is, and still edits its headers', () => {
    const headers = new Headers({ 'cache-control': 'no-store' });
    const rules = client({
      browserCacheControl: immutable,
      headers: { ...NO_EDITS, set: [['strict-transport-security', 'max-age=63072000']] },
    });
    editAnswerHeaders(headers, rules, 'GET', 503);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('strict-transport-security')).toBe('max-age=63072000');
  });

  it('lets a rule’s own headers.set of cache-control have the last word over the browser Cache-Control', () => {
    const headers = new Headers();
    const rules = client({
      browserCacheControl: immutable,
      headers: { ...NO_EDITS, set: [['cache-control', 'no-cache']] },
    });
    editAnswerHeaders(headers, rules, 'GET', 200);
    expect(headers.get('cache-control')).toBe('no-cache');
  });

  it('adds no Cache-Control where the answer had none and the status takes none', () => {
    const headers = new Headers();
    editAnswerHeaders(headers, client({ browserCacheControl: immutable }), 'GET', 404);
    expect(headers.has('cache-control')).toBe(false);
  });
});
