import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluatePreconditions, NOT_MODIFIED_HEADERS, notModifiedHeaders } from '../../../shared/http/conditional.ts';

const MODIFIED = 'Tue, 01 Sep 2026 12:00:00 GMT';
const BEFORE = 'Mon, 31 Aug 2026 12:00:00 GMT';
const AFTER = 'Wed, 02 Sep 2026 12:00:00 GMT';

const stored = (init: Record<string, string> = {}): Headers =>
  new Headers({ etag: '"v1"', 'last-modified': MODIFIED, ...init });
const evaluate = (request: Record<string, string>, representation: Headers = stored()) =>
  evaluatePreconditions(new Headers(request), representation);

describe('evaluatePreconditions', () => {
  it('uses the stored Date for If-Modified-Since when there is no Last-Modified (RFC 9111 §4.3.2)', () => {
    const representation = new Headers({ etag: '"v1"', date: 'Tue, 01 Dec 2026 10:00:00 GMT' });
    expect(evaluate({ 'if-modified-since': 'Tue, 01 Dec 2026 10:00:00 GMT' }, representation)).toBe('not-modified');
    expect(evaluate({ 'if-modified-since': 'Tue, 01 Dec 2026 09:59:59 GMT' }, representation)).toBe('proceed');
  });

  it('proceeds when the request has no preconditions', () => {
    expect(evaluate({})).toBe('proceed');
  });

  describe('If-Match (RFC 9110 §13.1.1, step 1 of §13.2.2)', () => {
    it('proceeds when one member matches the ETag strongly', () => {
      expect(evaluate({ 'if-match': '"v0", "v1"' })).toBe('proceed');
    });

    it('fails when no member matches', () => {
      expect(evaluate({ 'if-match': '"v0", "v2"' })).toBe('failed');
    });

    it('fails for a weak validator on either side, since If-Match uses the strong comparison (§8.8.3.2)', () => {
      expect(evaluate({ 'if-match': 'W/"v1"' })).toBe('failed');
      expect(evaluate({ 'if-match': '"v1"' }, stored({ etag: 'W/"v1"' }))).toBe('failed');
      expect(evaluate({ 'if-match': 'W/"v1"' }, stored({ etag: 'W/"v1"' }))).toBe('failed');
    });

    it('proceeds for "*", which matches any current representation', () => {
      expect(evaluate({ 'if-match': '*' })).toBe('proceed');
      expect(evaluate({ 'if-match': '*' }, new Headers())).toBe('proceed');
    });

    it('fails for a tag when the representation has no ETag', () => {
      expect(evaluate({ 'if-match': '"v1"' }, new Headers({ 'last-modified': MODIFIED }))).toBe('failed');
    });

    it('fails before If-None-Match is considered', () => {
      expect(evaluate({ 'if-match': '"v2"', 'if-none-match': '"v1"' })).toBe('failed');
    });

    it('makes If-Unmodified-Since ignored when present (step 2 applies only without If-Match)', () => {
      expect(evaluate({ 'if-match': '"v1"', 'if-unmodified-since': BEFORE })).toBe('proceed');
    });
  });

  describe('If-Unmodified-Since (RFC 9110 §13.1.4, step 2 of §13.2.2)', () => {
    it('fails when the representation was modified after the date', () => {
      expect(evaluate({ 'if-unmodified-since': BEFORE })).toBe('failed');
    });

    it('proceeds when the representation was modified at or before the date', () => {
      expect(evaluate({ 'if-unmodified-since': MODIFIED })).toBe('proceed');
      expect(evaluate({ 'if-unmodified-since': AFTER })).toBe('proceed');
    });

    it('is ignored when the date is not a valid HTTP-date', () => {
      expect(evaluate({ 'if-unmodified-since': '2026-08-31' })).toBe('proceed');
      expect(evaluate({ 'if-unmodified-since': 'yesterday' })).toBe('proceed');
    });

    it('is ignored when the representation has no Last-Modified', () => {
      expect(evaluate({ 'if-unmodified-since': BEFORE }, new Headers({ etag: '"v1"' }))).toBe('proceed');
    });
  });

  describe('If-None-Match (RFC 9110 §13.1.2, step 3 of §13.2.2)', () => {
    it('answers not modified when a member matches the ETag', () => {
      expect(evaluate({ 'if-none-match': '"v1"' })).toBe('not-modified');
      expect(evaluate({ 'if-none-match': '"v0", "v1", "v2"' })).toBe('not-modified');
    });

    it('uses the weak comparison: a weak tag on either side still matches', () => {
      expect(evaluate({ 'if-none-match': 'W/"v1"' })).toBe('not-modified');
      expect(evaluate({ 'if-none-match': '"v1"' }, stored({ etag: 'W/"v1"' }))).toBe('not-modified');
    });

    it('proceeds when no member matches', () => {
      expect(evaluate({ 'if-none-match': '"v0", W/"v2"' })).toBe('proceed');
    });

    it('answers not modified for "*"', () => {
      expect(evaluate({ 'if-none-match': '*' })).toBe('not-modified');
    });

    it('keeps commas inside an entity-tag as part of it', () => {
      expect(evaluate({ 'if-none-match': '"a,b"' }, stored({ etag: '"a,b"' }))).toBe('not-modified');
      expect(evaluate({ 'if-none-match': '"a,b"' }, stored({ etag: '"a"' }))).toBe('proceed');
    });

    it('proceeds when the representation has no ETag', () => {
      expect(evaluate({ 'if-none-match': '"v1"' }, new Headers({ 'last-modified': MODIFIED }))).toBe('proceed');
    });

    it('makes If-Modified-Since ignored when present, even when the date alone would give 304 (§13.1.3)', () => {
      expect(evaluate({ 'if-none-match': '"v0"', 'if-modified-since': AFTER })).toBe('proceed');
    });
  });

  describe('If-Modified-Since (RFC 9110 §13.1.3, step 4 of §13.2.2)', () => {
    it('answers not modified when the representation was modified at or before the date', () => {
      expect(evaluate({ 'if-modified-since': MODIFIED })).toBe('not-modified');
      expect(evaluate({ 'if-modified-since': AFTER })).toBe('not-modified');
    });

    it('proceeds when the representation was modified after the date', () => {
      expect(evaluate({ 'if-modified-since': BEFORE })).toBe('proceed');
    });

    it('is ignored when the date is not a valid HTTP-date', () => {
      expect(evaluate({ 'if-modified-since': 'not a date' })).toBe('proceed');
      expect(evaluate({ 'if-modified-since': `${MODIFIED}, ${AFTER}` })).toBe('proceed');
    });

    it('accepts the obsolete date forms a recipient must read (RFC 9110 §5.6.7)', () => {
      expect(evaluate({ 'if-modified-since': 'Tuesday, 01-Sep-26 12:00:00 GMT' })).toBe('not-modified');
      expect(evaluate({ 'if-modified-since': 'Tue Sep  1 12:00:00 2026' })).toBe('not-modified');
    });

    it('is ignored when the representation has no Last-Modified', () => {
      expect(evaluate({ 'if-modified-since': AFTER }, new Headers({ etag: '"v1"' }))).toBe('proceed');
    });
  });

  it('fails on If-Unmodified-Since before it answers not modified for If-None-Match', () => {
    expect(evaluate({ 'if-unmodified-since': BEFORE, 'if-none-match': '"v1"' })).toBe('failed');
  });

  it('never throws, whatever the request and representation header values', () => {
    const char = fc.constantFrom(...' \t!"#*,/0123456789:;=ADGMOSTWabcdefgnorstuvwx\\'.split(''));
    const text = fc.string({ unit: char, maxLength: 40 }).map((s) => s.trim());
    const value = fc.oneof(text, fc.constantFrom('*', '"v1"', 'W/"v1"', MODIFIED, BEFORE, AFTER, '"', 'W/', ','));
    const field = fc.option(value, { nil: undefined });
    const record = fc.record({
      'if-match': field,
      'if-none-match': field,
      'if-modified-since': field,
      'if-unmodified-since': field,
    });
    const representation = fc.record({ etag: field, 'last-modified': field });
    const defined = (init: Record<string, string | undefined>): Headers =>
      new Headers(Object.entries(init).filter((entry): entry is [string, string] => entry[1] !== undefined));
    fc.assert(
      fc.property(record, representation, (request, stored) => {
        expect(['proceed', 'not-modified', 'failed']).toContain(
          evaluatePreconditions(defined(request), defined(stored)),
        );
      }),
    );
  });
});

describe('notModifiedHeaders', () => {
  it('keeps only the fields a 304 carries (RFC 9110 §15.4.5)', () => {
    const representation = new Headers({
      'cache-control': 'max-age=60',
      'content-location': '/a.txt',
      date: MODIFIED,
      etag: '"v1"',
      expires: AFTER,
      vary: 'Accept-Encoding',
      'last-modified': MODIFIED,
      'content-type': 'text/plain',
      'content-length': '12',
      'content-encoding': 'gzip',
      'accept-ranges': 'bytes',
      'cache-tag': 'blog',
    });
    const headers = notModifiedHeaders(representation);
    expect([...headers.keys()].sort()).toEqual([...NOT_MODIFIED_HEADERS].sort());
    for (const name of NOT_MODIFIED_HEADERS) expect(headers.get(name), name).toBe(representation.get(name));
  });

  it('adds none of those fields that the representation lacks', () => {
    expect([...notModifiedHeaders(new Headers({ etag: '"v1"', 'content-type': 'text/plain' })).entries()]).toEqual([
      ['etag', '"v1"'],
    ]);
  });
});
