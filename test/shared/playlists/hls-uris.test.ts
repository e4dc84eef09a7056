import { describe, expect, it } from 'vitest';
import { hlsUris, isHlsPlaylist } from '../../../shared/playlists/hls-uris.ts';

/** The URIs named, as written in the text. */
function named(text: string): string[] {
  return hlsUris(text).map((uri) => {
    expect(text.slice(uri.start, uri.end)).toBe(uri.uri);
    return uri.uri;
  });
}

describe('isHlsPlaylist (RFC 8216 §4.3.1.1: EXTM3U is the first line)', () => {
  it('knows a playlist by its first line, with LF, CR LF or nothing after it, a BOM before it', () => {
    for (const text of ['#EXTM3U\n#EXTINF:4,\na.ts\n', '#EXTM3U\r\n', '#EXTM3U', '\uFEFF#EXTM3U\n'])
      expect(isHlsPlaylist(text), JSON.stringify(text)).toBe(true);
  });

  it('refuses anything else: EXTM3U later, another first line, an HTML page', () => {
    for (const text of ['\n#EXTM3U\n', '#EXTM3Ux\n', '<html>#EXTM3U', '#EXTINF:4,\n#EXTM3U\n', ''])
      expect(isHlsPlaylist(text), JSON.stringify(text)).toBe(false);
  });
});

describe('hlsUris', () => {
  it('names each URI line of a media playlist and the URI of EXT-X-KEY and EXT-X-MAP (§4.3.2.4, §4.3.2.5)', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-VERSION:7',
      '#EXT-X-KEY:METHOD=AES-128,URI="keys/k1.bin",IV=0x0123456789abcdef0123456789abcdef',
      '#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"',
      '#EXTINF:4.0,',
      'seg-1.m4s',
      '#EXTINF:4.0,title, with a comma',
      'seg-2.m4s?v=2',
      '#EXT-X-ENDLIST',
      '',
    ].join('\n');
    expect(named(text)).toEqual(['keys/k1.bin', 'init.mp4', 'seg-1.m4s', 'seg-2.m4s?v=2']);
  });

  it('names the variants, renditions and I-frame playlists of a master playlist (§4.3.4)', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English, main",DEFAULT=YES,URI="audio/en.m3u8"',
      '#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"',
      '#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aac"',
      '720p/index.m3u8',
      '#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="720p/iframes.m3u8"',
      '#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key-1"',
      '#EXT-X-SESSION-DATA:DATA-ID="com.example.title",URI="title.json"',
    ].join('\n');
    expect(named(text)).toEqual(['audio/en.m3u8', '720p/index.m3u8', '720p/iframes.m3u8', 'skd://key-1', 'title.json']);
  });

  it('names a byte-range playlist’s URI on each segment, never the EXT-X-BYTERANGE line (§4.3.2.2)', () => {
    const text = '#EXTM3U\n#EXTINF:4,\n#EXT-X-BYTERANGE:1000@0\nall.ts\n#EXTINF:4,\n#EXT-X-BYTERANGE:1200\nall.ts\n';
    expect(named(text)).toEqual(['all.ts', 'all.ts']);
  });

  it('names Low-Latency HLS’s parts, preload hints and rendition reports (rfc8216bis §4.4.4.9, §4.4.5.3, §4.4.5.4)', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-PART:DURATION=0.33,URI="part-1.1.m4s",INDEPENDENT=YES',
      '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-1.2.m4s"',
      '#EXT-X-RENDITION-REPORT:URI="../480p/index.m3u8",LAST-MSN=1,LAST-PART=1',
    ].join('\n');
    expect(named(text)).toEqual(['part-1.1.m4s', 'part-1.2.m4s', '../480p/index.m3u8']);
  });

  it('never names a comment, another attribute, a URI inside another quoted value, or an unquoted URI', () => {
    const text = [
      '#EXTM3U',
      '# seg-0.ts is gone',
      '#URI="not-a-tag.ts"',
      '#EXT-X-SESSION-DATA:DATA-ID="x",VALUE="URI=\'in-a-value.ts\'"',
      '#EXT-X-MEDIA:TYPE=AUDIO,XURI="other-attribute.m3u8",GROUP-ID="a",NAME="a"',
      '#EXT-X-MAP:URI=unquoted.mp4',
      '#EXT-X-KEY:METHOD=NONE',
      '#EXTINF:4,',
      'seg-1.ts',
    ].join('\n');
    expect(named(text)).toEqual(['seg-1.ts']);
  });

  it('names a URI line without the white space around it, and keeps CR LF out of it', () => {
    const text = '#EXTM3U\r\n#EXTINF:4,\r\n  seg-1.ts \r\n\r\n#EXT-X-MAP:URI="init.mp4"\r\n';
    expect(named(text)).toEqual(['seg-1.ts', 'init.mp4']);
  });

  it('leaves out a URI with a variable reference (EXT-X-DEFINE, rfc8216bis §4.3): it is known only once substituted', () => {
    const text = '#EXTM3U\n#EXT-X-DEFINE:NAME="cdn",VALUE="https://a.example"\n#EXTINF:4,\n{$cdn}/seg-1.ts\nseg-2.ts\n';
    expect(named(text)).toEqual(['seg-2.ts']);
  });

  it('leaves a tag whose attribute list does not parse', () => {
    for (const tag of ['#EXT-X-MAP:URI="init.mp4', '#EXT-X-MAP:BYTERANGE="1@0" URI="init.mp4"', '#EXT-X-MAP:uri="a"'])
      expect(named(`#EXTM3U\n${tag}\n`), tag).toEqual([]);
  });
});
