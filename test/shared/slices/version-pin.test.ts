import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrongEtag } from '../../../shared/http/etag.ts';
import { discoveredPin, isVersionPin, pinCondition, versionPin } from '../../../shared/slices/version-pin.ts';

const MIB = 1024 * 1024;
const JAN_1 = 'Wed, 01 Jan 2025 00:00:00 GMT';
const JAN_1_SECONDS = Date.UTC(2025, 0, 1) / 1000;

describe('versionPin: what names the version an answer holds', () => {
  it('is a strong ETag as the origin sent it, whatever its Last-Modified', () => {
    expect(versionPin(new Headers({ etag: '"9b2c"', 'last-modified': JAN_1 }), MIB)).toBe('"9b2c"');
  });

  it('is null for a weak ETag or one that is no entity-tag, even beside a Last-Modified (RFC 9110 §8.8.1)', () => {
    expect(versionPin(new Headers({ etag: 'W/"9b2c"', 'last-modified': JAN_1 }), MIB)).toBeNull();
    expect(versionPin(new Headers({ etag: '9b2c', 'last-modified': JAN_1 }), MIB)).toBeNull();
  });

  it('without an ETag, is the Last-Modified in seconds and the length: no entity-tag, never sent as one', () => {
    const pin = versionPin(new Headers({ 'last-modified': JAN_1 }), 3 * MIB + 17);
    expect(pin).toBe(`modified=${JAN_1_SECONDS};length=${3 * MIB + 17}`);
    expect(isStrongEtag(pin)).toBe(false);
  });

  it('reads the three HTTP-date forms alike (RFC 9110 §5.6.7), and nothing else', () => {
    const forms = [JAN_1, 'Wednesday, 01-Jan-25 00:00:00 GMT', 'Wed Jan  1 00:00:00 2025'];
    const pins = forms.map((date) => versionPin(new Headers({ 'last-modified': date }), MIB));
    expect(new Set(pins)).toEqual(new Set([`modified=${JAN_1_SECONDS};length=${MIB}`]));
    expect(versionPin(new Headers({ 'last-modified': '2025-01-01T00:00:00Z' }), MIB)).toBeNull();
    expect(versionPin(new Headers(), MIB)).toBeNull();
  });

  it('tells apart any two versions that differ in Last-Modified second or length', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (a, b, sizeA, sizeB) => {
          const pinA = versionPin(new Headers({ 'last-modified': new Date(a * 1000).toUTCString() }), sizeA);
          const pinB = versionPin(new Headers({ 'last-modified': new Date(b * 1000).toUTCString() }), sizeB);
          expect(pinA === pinB).toBe(a === b && sizeA === sizeB);
          expect(isVersionPin(pinA)).toBe(true);
        },
      ),
    );
  });
});

describe('discoveredPin: the version to slice by, as first found', () => {
  it('is the strong ETag when there is one, Date or none', () => {
    expect(discoveredPin(new Headers({ etag: '"9b2c"' }), MIB)).toBe('"9b2c"');
  });

  it('keeps a weak ETag out, even with a strong Last-Modified', () => {
    expect(
      discoveredPin(
        new Headers({ etag: 'W/"9b2c"', 'last-modified': JAN_1, date: 'Thu, 02 Jan 2025 00:00:00 GMT' }),
        MIB,
      ),
    ).toBeNull();
  });

  it('takes a Last-Modified only when the Date is at least a second after it (RFC 9110 §8.8.2.2)', () => {
    const at = (date: string) => discoveredPin(new Headers({ 'last-modified': JAN_1, date }), MIB);
    expect(at('Wed, 01 Jan 2025 00:00:01 GMT')).toBe(`modified=${JAN_1_SECONDS};length=${MIB}`);
    // Written again within the same second, another version would name the same date.
    expect(at(JAN_1)).toBeNull();
    // A Last-Modified after the Date is no validator to trust.
    expect(at('Tue, 31 Dec 2024 23:59:59 GMT')).toBeNull();
    expect(discoveredPin(new Headers({ 'last-modified': JAN_1 }), MIB)).toBeNull();
    expect(discoveredPin(new Headers({ 'last-modified': JAN_1, date: 'yesterday' }), MIB)).toBeNull();
  });

  it('names what versionPin names of the same answer', () => {
    const headers = new Headers({ 'last-modified': JAN_1, date: 'Fri, 03 Jan 2025 10:00:00 GMT' });
    expect(discoveredPin(headers, 5 * MIB)).toBe(versionPin(headers, 5 * MIB));
  });
});

describe('isVersionPin', () => {
  it('reads a strong ETag and a Last-Modified pin, nothing else', () => {
    expect(isVersionPin('"9b2c"')).toBe(true);
    expect(isVersionPin(`modified=${JAN_1_SECONDS};length=0`)).toBe(true);
    for (const bad of [null, '', 'W/"9b2c"', 'modified=1;length=', 'modified=01;length=1', 'modified=1; length=1'])
      expect(isVersionPin(bad), String(bad)).toBe(false);
  });
});

describe('pinCondition: how the origin is asked for bytes of the pinned version only (RFC 9110 §13.1)', () => {
  it('is If-Match for an ETag', () => {
    expect(pinCondition('"9b2c"')).toEqual(['if-match', '"9b2c"']);
  });

  it('is If-Unmodified-Since the Last-Modified, as an IMF-fixdate, for a Last-Modified pin', () => {
    const pin = versionPin(new Headers({ 'last-modified': 'Wednesday, 01-Jan-25 00:00:00 GMT' }), MIB) ?? '';
    expect(pinCondition(pin)).toEqual(['if-unmodified-since', JAN_1]);
  });
});
