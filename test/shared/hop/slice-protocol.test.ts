import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseSliceRequestPath,
  parseWarmWord,
  type SliceRequest,
  sliceRequestPath,
  warmWord,
} from '../../../shared/hop/slice-protocol.ts';

const MIB = 1024 * 1024;
const PINNED: SliceRequest = {
  span: { first: 4, last: 19 },
  sliceSize: MIB,
  etag: '"9b2cf535f27731c974343645a3985328"',
};
const DISCOVERY: SliceRequest = { span: { first: 0, last: 0 }, sliceSize: MIB, etag: undefined };

/** The path as the shield sees it: through the URL parser, query (appended by the caller) split off. */
function pathAtShield(path: string, query = ''): string {
  return new URL(`${path}${query}`, 'https://shield.example').pathname;
}

/** etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3). */
const etagc = fc
  .oneof(fc.constant(0x21), fc.integer({ min: 0x23, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
  .map((code) => String.fromCharCode(code));
const strongEtag = fc.string({ unit: etagc, maxLength: 24 }).map((tag) => `"${tag}"`);
const span = fc
  .tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 999_999_999 }))
  .map(([a, b]) => ({ first: Math.min(a, b), last: Math.max(a, b) }));
/** An object path as url.pathname gives it: percent-encoded where needed. */
const objectPath = fc
  .array(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => s !== '.' && s !== '..'),
    { minLength: 1, maxLength: 4 },
  )
  .map((segments) => `/${segments.map(encodeURIComponent).join('/')}`);

describe('sliceRequestPath', () => {
  it('names the span, the slice size and the pinned ETag before the object path', () => {
    expect(sliceRequestPath(PINNED, '/videos/film.mp4')).toBe(
      `/__tiercache/slices/4-19/${MIB}/%229b2cf535f27731c974343645a3985328%22/videos/film.mp4`,
    );
  });

  it('writes "-" for a discovery request, which is pinned to no version', () => {
    expect(sliceRequestPath(DISCOVERY, '/videos/film.mp4')).toBe(`/__tiercache/slices/0-0/${MIB}/-/videos/film.mp4`);
  });

  it('percent-encodes the ETag so that it stays one path segment', () => {
    const path = sliceRequestPath({ ...PINNED, etag: '"a/b?c#d%e"' }, '/k');
    expect(path).toBe(`/__tiercache/slices/4-19/${MIB}/%22a%2Fb%3Fc%23d%25e%22/k`);
  });
});

describe('parseSliceRequestPath', () => {
  it('reads back a pinned request and its object path', () => {
    expect(parseSliceRequestPath(sliceRequestPath(PINNED, '/videos/film.mp4'))).toEqual({
      request: PINNED,
      objectPath: '/videos/film.mp4',
    });
  });

  it('reads back a discovery request, with no ETag', () => {
    expect(parseSliceRequestPath(sliceRequestPath(DISCOVERY, '/videos/film.mp4'))).toEqual({
      request: DISCOVERY,
      objectPath: '/videos/film.mp4',
    });
  });

  it('reads back an ETag with quotes, slashes, percent signs and obs-text', () => {
    for (const etag of ['""', '"a/b"', '"50%"', '"%22"', '"-"', '"a?b#c"', '"caf\u00e9"', '"!#$&\'()*+,;=@[]^`{|}~"']) {
      const request = { ...PINNED, etag };
      expect(parseSliceRequestPath(pathAtShield(sliceRequestPath(request, '/k'))), etag).toEqual({
        request,
        objectPath: '/k',
      });
    }
  });

  it('keeps the percent-encodings of the object path as they were', () => {
    const path = '/bucket/a%20b/c%2Fd/%F0%9F%98%80/100%25';
    expect(parseSliceRequestPath(pathAtShield(sliceRequestPath(PINNED, path)))?.objectPath).toBe(path);
  });

  it('leaves the query out of the path: the caller carries it separately', () => {
    const path = sliceRequestPath(PINNED, '/videos/film.mp4');
    const url = new URL(`${path}?versionId=3&x=%2F`, 'https://shield.example');
    expect(parseSliceRequestPath(url.pathname)).toEqual({ request: PINNED, objectPath: '/videos/film.mp4' });
    expect(url.search).toBe('?versionId=3&x=%2F');
  });

  it('keeps an object path that itself looks like a slice request', () => {
    const inner = sliceRequestPath(DISCOVERY, '/k');
    expect(parseSliceRequestPath(sliceRequestPath(PINNED, inner))).toEqual({ request: PINNED, objectPath: inner });
  });

  it('reads a span of one slice', () => {
    expect(parseSliceRequestPath('/__tiercache/slices/7-7/1024/-/k')?.request.span).toEqual({ first: 7, last: 7 });
  });

  it('is not a slice request for a plain object path', () => {
    expect(parseSliceRequestPath('/videos/film.mp4')).toBeUndefined();
    expect(parseSliceRequestPath('/')).toBeUndefined();
    expect(parseSliceRequestPath('/bucket/__tiercache/slices/0-1/1024/-/k')).toBeUndefined();
  });

  it('refuses a path whose prefix is not exactly the slice prefix', () => {
    for (const path of [
      '/__tiercache/slice/0-1/1024/-/k',
      '/__TIERCACHE/slices/0-1/1024/-/k',
      '__tiercache/slices/0-1/1024/-/k',
      '//__tiercache/slices/0-1/1024/-/k',
      '/__tiercache/slices',
      '/__tiercache/slices/',
    ]) {
      expect(parseSliceRequestPath(path), path).toBeUndefined();
    }
  });

  it('refuses a reversed span', () => {
    expect(parseSliceRequestPath('/__tiercache/slices/5-3/1024/-/k')).toBeUndefined();
  });

  it('refuses non-numeric, signed, fractional or over-long fields', () => {
    for (const fields of [
      'a-1/1024/-',
      '0-b/1024/-',
      '0-1/x/-',
      '-1-2/1024/-',
      '0-+1/1024/-',
      '0.5-1/1024/-',
      '0-1/1e3/-',
      '1234567890-1234567891/1024/-',
      '0-1/1234567890/-',
      '0-1/ 1024/-',
      '01/1024/-',
      '0-1-2/1024/-',
    ]) {
      expect(parseSliceRequestPath(`/__tiercache/slices/${fields}/k`), fields).toBeUndefined();
    }
  });

  it('refuses a request with a field or the object path missing', () => {
    for (const rest of ['0-1/1024/-', '0-1/1024/', '0-1/1024//k', '0-1//-/k', '0-1/-/k', '/1024/-/k']) {
      expect(parseSliceRequestPath(`/__tiercache/slices/${rest}`), rest).toBeUndefined();
    }
  });

  it('refuses an ETag whose percent-encoding is malformed', () => {
    expect(parseSliceRequestPath('/__tiercache/slices/0-1/1024/%22abc%/k')).toBeUndefined();
    expect(parseSliceRequestPath('/__tiercache/slices/0-1/1024/%E0%A4%A/k')).toBeUndefined();
    expect(parseSliceRequestPath('/__tiercache/slices/0-1/1024/%FF/k')).toBeUndefined();
  });

  it('reads back any span, slice size, strong ETag and object path, through the URL parser', () => {
    const etag = fc.option(strongEtag, { nil: undefined });
    fc.assert(
      fc.property(span, fc.integer({ min: 1, max: 999_999_999 }), etag, objectPath, (s, sliceSize, tag, path) => {
        const request: SliceRequest = { span: s, sliceSize, etag: tag };
        expect(parseSliceRequestPath(pathAtShield(sliceRequestPath(request, path), '?q=1'))).toEqual({
          request,
          objectPath: path,
        });
      }),
    );
  });

  it('reads back any ETag text at all but "-" and the empty string, which no strong ETag is', () => {
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }).filter((s) => s !== '-');
    fc.assert(
      fc.property(span, text, (s, tag) => {
        const request: SliceRequest = { span: s, sliceSize: MIB, etag: tag };
        expect(parseSliceRequestPath(sliceRequestPath(request, '/k'))).toEqual({ request, objectPath: '/k' });
      }),
    );
  });
});

describe('the rest of a span (from)', () => {
  it('names the offset in the path, so no cache can take the rest for the whole span', () => {
    const rest: SliceRequest = { ...PINNED, from: 12345 };
    const path = sliceRequestPath(rest, '/videos/film.mp4');
    expect(path).toBe(`/__tiercache/slices/4-19+12345/${MIB}/%229b2cf535f27731c974343645a3985328%22/videos/film.mp4`);
    expect(parseSliceRequestPath(pathAtShield(path))).toEqual({ request: rest, objectPath: '/videos/film.mp4' });
  });

  it('refuses an offset on a discovery request, which has no version to continue', () => {
    expect(parseSliceRequestPath(`/__tiercache/slices/0-0+5/${MIB}/-/k`)).toBeUndefined();
  });
});

describe('a warm (the edge reading ahead: store it, do not send it)', () => {
  it('names the warm in the path, so no cache can take a warm answer for the span, nor the span for a warm', () => {
    const warm: SliceRequest = { span: { first: 7, last: 7 }, sliceSize: MIB, etag: PINNED.etag, warm: true };
    const path = sliceRequestPath(warm, '/videos/film.mp4');
    expect(path).toBe(`/__tiercache/slices/7-7~/${MIB}/%229b2cf535f27731c974343645a3985328%22/videos/film.mp4`);
    expect(path).not.toBe(sliceRequestPath({ ...warm, warm: false }, '/videos/film.mp4'));
    expect(parseSliceRequestPath(pathAtShield(path))).toEqual({ request: warm, objectPath: '/videos/film.mp4' });
  });

  it('refuses a warm of no version (discovery), and a warm of the rest of a span', () => {
    expect(parseSliceRequestPath(`/__tiercache/slices/0-0~/${MIB}/-/k`)).toBeUndefined();
    expect(parseSliceRequestPath(`/__tiercache/slices/0-0+5~/${MIB}/%22e%22/k`)).toBeUndefined();
    expect(parseSliceRequestPath(`/__tiercache/slices/0-0~~/${MIB}/%22e%22/k`)).toBeUndefined();
  });

  it('round-trips any pinned warm', () => {
    fc.assert(
      fc.property(span, strongEtag, objectPath, (s, tag, path) => {
        const request: SliceRequest = { span: s, sliceSize: MIB, etag: tag, warm: true };
        expect(parseSliceRequestPath(pathAtShield(sliceRequestPath(request, path)))).toEqual({
          request,
          objectPath: path,
        });
      }),
    );
  });

  it('says in one word whether the span is stored at the shield, and what the origin sent for it', () => {
    expect(warmWord(8 * MIB)).toBe(`stored ${8 * MIB}`);
    expect(parseWarmWord(warmWord(8 * MIB))).toBe(8 * MIB);
    expect(parseWarmWord(warmWord(0))).toBe(0);
    expect(warmWord(undefined)).toBe('failed');
    for (const word of [
      'failed',
      '',
      'stored',
      'stored -1',
      'stored 1.5',
      ' stored 1',
      'stored 1 ',
      'stored 9999999999999999',
    ])
      expect(parseWarmWord(word), word).toBeUndefined();
  });
});
