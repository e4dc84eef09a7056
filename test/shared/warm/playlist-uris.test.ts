import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attribute, playlistKind, playlistUris } from '../../../shared/warm/playlist-uris.ts';

const BASE = new URL('https://cdn.example/video/ep1/index.m3u8');

function hls(text: string, base: URL = BASE, limit = 10_000) {
  return playlistUris(text, 'hls', base, limit);
}

function media(text: string): string[] {
  const found = hls(text);
  if ('error' in found) throw new Error(found.error);
  return found.media;
}

describe('playlistKind', () => {
  it('knows HLS and DASH playlists by their extension, in any case', () => {
    expect(playlistKind('/v/index.m3u8')).toBe('hls');
    expect(playlistKind('/v/INDEX.M3U8')).toBe('hls');
    expect(playlistKind('/v/manifest.mpd')).toBe('dash');
    expect(playlistKind('/v/seg.ts')).toBeUndefined();
    expect(playlistKind('/v/m3u8')).toBeUndefined();
  });
});

describe('an HLS playlist (RFC 8216)', () => {
  it('names its media segments, resolved against the playlist, in order (§4.3.2)', () => {
    const text =
      '#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n#EXTINF:4,\nsub/seg1.ts\n#EXTINF:4,\n/other/seg2.ts\n#EXT-X-ENDLIST\n';
    expect(hls(text)).toEqual({
      playlists: [],
      media: [
        'https://cdn.example/video/ep1/seg0.ts',
        'https://cdn.example/video/ep1/sub/seg1.ts',
        'https://cdn.example/other/seg2.ts',
      ],
      unreadable: [],
    });
  });

  it("names a master playlist's variant streams, renditions and I-frame playlists as playlists (§4.3.4)", () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English, main",URI="audio/en.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aac"',
      '720p/index.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=640000',
      'https://cdn.example/video/ep1/360p/index.m3u8',
      '#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="720p/iframes.m3u8"',
      '#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"',
    ].join('\n');
    expect(hls(text)).toEqual({
      playlists: [
        'https://cdn.example/video/ep1/audio/en.m3u8',
        'https://cdn.example/video/ep1/720p/index.m3u8',
        'https://cdn.example/video/ep1/360p/index.m3u8',
        'https://cdn.example/video/ep1/720p/iframes.m3u8',
      ],
      media: [],
      unreadable: [],
    });
  });

  it('names the initialization section, keys and partial segments, but no key of METHOD=NONE (§4.3.2.4, §4.3.2.5)', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"',
      '#EXT-X-KEY:METHOD=AES-128,URI="https://cdn.example/keys/k1",IV=0x1',
      '#EXT-X-PART:DURATION=1,URI="part0.m4s"',
      '#EXTINF:4,',
      'seg0.m4s',
      '#EXT-X-KEY:METHOD=NONE',
      '#EXT-X-KEY:METHOD=NONE,URI="ignored.key"',
      '#EXTINF:4,',
      'seg1.m4s',
    ].join('\r\n');
    expect(media(text)).toEqual([
      'https://cdn.example/video/ep1/init.mp4',
      'https://cdn.example/keys/k1',
      'https://cdn.example/video/ep1/part0.m4s',
      'https://cdn.example/video/ep1/seg0.m4s',
      'https://cdn.example/video/ep1/seg1.m4s',
    ]);
  });

  it('names the file of a byte-range playlist once, however many ranges of it it lists (§4.3.2.2)', () => {
    const text =
      '#EXTM3U\n#EXT-X-MAP:URI="all.mp4",BYTERANGE="800@0"\n#EXTINF:4,\n#EXT-X-BYTERANGE:1000@800\nall.mp4\n#EXTINF:4,\n#EXT-X-BYTERANGE:1000\nall.mp4\n';
    expect(media(text)).toEqual(['https://cdn.example/video/ep1/all.mp4']);
  });

  it('skips comments and unknown tags, keeps fragments out, and reports what resolves to no URL', () => {
    const text = '#EXTM3U\n# a comment\n#EXT-X-UNKNOWN:URI="x.ts"\nseg.ts#t=3\nhttp://[bad\n';
    expect(hls(text)).toEqual({
      playlists: [],
      media: ['https://cdn.example/video/ep1/seg.ts'],
      unreadable: ['http://[bad'],
    });
  });

  it('refuses a text that is not HLS, and a playlist naming more than it may', () => {
    expect(hls('seg0.ts\n')).toEqual({ error: expect.stringMatching(/first line is not #EXTM3U/) });
    expect(hls('\uFEFF#EXTM3U\nseg.ts')).not.toHaveProperty('error');
    expect(hls('#EXTM3U\na.ts\nb.ts\nc.ts\n', BASE, 2)).toEqual({ error: 'the playlist names more than 2 URIs' });
    expect(hls('#EXTM3U\na.ts\nb.ts\n', BASE, 2)).not.toHaveProperty('error');
  });

  it('reads attribute lists, quoted values holding commas (§4.2)', () => {
    const list = 'TYPE=AUDIO,NAME="a, b",URI="x.m3u8",DEFAULT=YES';
    expect(attribute(list, 'NAME')).toBe('a, b');
    expect(attribute(list, 'URI')).toBe('x.m3u8');
    expect(attribute(list, 'DEFAULT')).toBe('YES');
    expect(attribute(list, 'LANGUAGE')).toBeUndefined();
  });

  it('names exactly the segments a media playlist lists, each once, in order', () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}\.(ts|m4s|aac)$/);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 50 }), (names) => {
        const text = ['#EXTM3U', ...names.flatMap((name) => ['#EXTINF:4.0,', name]), '#EXT-X-ENDLIST'].join('\n');
        const found = hls(text);
        const expected = [...new Set(names)].map((name) => new URL(name, BASE).href);
        expect(found).toEqual({ playlists: [], media: expected, unreadable: [] });
      }),
    );
  });

  it('never throws, whatever the text, and never names more than its limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), fc.nat({ max: 20 }), (body, limit) => {
        const found = hls(`#EXTM3U\n${body}`, BASE, limit);
        if ('error' in found) return true;
        return found.media.length + found.playlists.length + found.unreadable.length <= limit;
      }),
    );
  });
});
