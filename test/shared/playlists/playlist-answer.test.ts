import { describe, expect, it } from 'vitest';
import {
  isPlaylistPath,
  isPlaylistType,
  rewrittenHeaders,
  unrewritable,
} from '../../../shared/playlists/playlist-answer.ts';

describe('isPlaylistPath and isPlaylistType', () => {
  it('knows HLS and DASH playlists by name, in any case', () => {
    for (const path of ['/v/index.m3u8', '/v/a.M3U8', '/v/old.m3u', '/v/manifest.mpd'])
      expect(isPlaylistPath(path), path).toBe(true);
    for (const path of ['/v/seg.ts', '/v/index.m3u8/', '/v/m3u8', '/v/a.mpd.bak'])
      expect(isPlaylistPath(path)).toBe(false);
  });

  it('knows them by media type, parameters and case aside (RFC 8216 §4, ISO/IEC 23009-1 Annex C)', () => {
    for (const type of [
      'application/vnd.apple.mpegurl',
      'Application/X-MpegURL; charset=utf-8',
      'application/dash+xml',
    ])
      expect(isPlaylistType(type), type).toBe(true);
    for (const type of [null, 'text/plain', 'video/mp2t', 'application/xml']) expect(isPlaylistType(type)).toBe(false);
  });
});

describe('unrewritable', () => {
  it('rewrites identity, gzip and deflate content; not br, zstd or two codings', () => {
    for (const coding of [null, 'identity', 'gzip', 'x-gzip', 'deflate', 'GZIP'])
      expect(unrewritable(new Headers(coding === null ? {} : { 'content-encoding': coding })), String(coding)).toBe(
        undefined,
      );
    for (const coding of ['br', 'zstd', 'gzip, br', 'deflate, gzip'])
      expect(unrewritable(new Headers({ 'content-encoding': coding })), coding).toBe('encoding');
  });

  it('never transforms an answer that says no-transform (RFC 9110 §7.7)', () => {
    expect(unrewritable(new Headers({ 'cache-control': 'max-age=2, No-Transform' }))).toBe('no-transform');
  });
});

describe('rewrittenHeaders', () => {
  const stored = new Headers({
    'content-type': 'application/vnd.apple.mpegurl',
    'content-length': '120',
    'content-encoding': 'gzip',
    etag: '"abc"',
    'cache-control': 'public, max-age=2, s-maxage=10, stale-while-revalidate=4',
    'accept-ranges': 'bytes',
    'content-md5': 'x',
    vary: 'Accept-Encoding',
    age: '1',
  });

  it('counts the rewritten bytes, decoded, and keeps no field that describes the stored ones', () => {
    const headers = rewrittenHeaders(stored, 180);
    expect(headers.get('content-length')).toBe('180');
    expect(headers.get('content-encoding')).toBe(null);
    expect(headers.get('content-md5')).toBe(null);
    expect(headers.get('accept-ranges')).toBe('none');
    expect(headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(headers.get('vary')).toBe('Accept-Encoding');
    expect(headers.get('age')).toBe('1');
  });

  it('makes the ETag weak (RFC 9110 §8.8.1: other bytes, the same meaning), and leaves a weak one as it is', () => {
    expect(rewrittenHeaders(stored, 1).get('etag')).toBe('W/"abc"');
    expect(rewrittenHeaders(new Headers({ etag: 'W/"x"' }), 1).get('etag')).toBe('W/"x"');
    expect(rewrittenHeaders(new Headers(), 1).get('etag')).toBe(null);
  });

  it('says private in place of what let a shared cache keep it, the browser’s freshness kept (RFC 9111 §5.2.2.7)', () => {
    expect(rewrittenHeaders(stored, 1).get('cache-control')).toBe('private, max-age=2, stale-while-revalidate=4');
    expect(
      rewrittenHeaders(new Headers({ 'cache-control': 'private="set-cookie", no-cache' }), 1).get('cache-control'),
    ).toBe('private, no-cache');
    expect(rewrittenHeaders(new Headers(), 1).get('cache-control')).toBe('private');
  });

  it('sends no Content-Length for a HEAD or a 304, which carry no content', () => {
    expect(rewrittenHeaders(stored, undefined).get('content-length')).toBe(null);
  });
});
