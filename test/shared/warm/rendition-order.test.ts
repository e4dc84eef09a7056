import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SEGMENT_MS, renditionOrders } from '../../../shared/warm/rendition-order.ts';

const BASE = new URL('https://cdn.example/video/ep1/720p/index.m3u8');
const LIMIT = 10_000;

function media(names: readonly string[], target = '4'): string {
  const lines = ['#EXTM3U', `#EXT-X-TARGETDURATION:${target}`, '#EXT-X-MEDIA-SEQUENCE:0'];
  for (const name of names) lines.push('#EXTINF:4.0,', name);
  return `${[...lines, '#EXT-X-ENDLIST'].join('\n')}\n`;
}

describe('an HLS media playlist (RFC 8216 §4.3.2)', () => {
  it('is one rendition: its segments resolved against the playlist, in playlist order, and its target duration', () => {
    expect(renditionOrders(media(['a.ts', 'sub/b.ts', '/other/c.ts']), 'hls', BASE, LIMIT)).toEqual([
      {
        segments: [
          'https://cdn.example/video/ep1/720p/a.ts',
          'https://cdn.example/video/ep1/720p/sub/b.ts',
          'https://cdn.example/other/c.ts',
        ],
        targetMs: 4000,
      },
    ]);
  });

  it('leaves out what is no segment: its key and initialization section (EXT-X-KEY, EXT-X-MAP) and comments', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:6',
      '#EXT-X-MAP:URI="init.mp4"',
      '#EXT-X-KEY:METHOD=AES-128,URI="key.bin"',
      '# a comment',
      '#EXTINF:6,',
      'seg0.m4s',
      '#EXTINF:6,',
      'seg1.m4s',
    ].join('\r\n');
    expect(renditionOrders(text, 'hls', BASE, LIMIT)).toEqual([
      {
        segments: ['https://cdn.example/video/ep1/720p/seg0.m4s', 'https://cdn.example/video/ep1/720p/seg1.m4s'],
        targetMs: 6000,
      },
    ]);
  });

  it('keeps a byte-range playlist’s one file once (§4.3.2.2): nothing after it to read', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:4',
      '#EXTINF:4,',
      '#EXT-X-BYTERANGE:1000@0',
      'all.ts',
      '#EXTINF:4,',
      '#EXT-X-BYTERANGE:1000@1000',
      'all.ts',
    ].join('\n');
    expect(renditionOrders(text, 'hls', BASE, LIMIT)).toEqual([
      { segments: ['https://cdn.example/video/ep1/720p/all.ts'], targetMs: 4000 },
    ]);
  });

  it('takes DEFAULT_SEGMENT_MS where the playlist states no target duration, and at most a minute', () => {
    expect(renditionOrders(media(['a.ts'], ''), 'hls', BASE, LIMIT)[0]?.targetMs).toBe(DEFAULT_SEGMENT_MS);
    expect(renditionOrders(media(['a.ts'], '0'), 'hls', BASE, LIMIT)[0]?.targetMs).toBe(DEFAULT_SEGMENT_MS);
    expect(renditionOrders(media(['a.ts'], '3600'), 'hls', BASE, LIMIT)[0]?.targetMs).toBe(60_000);
  });

  it('is none for a master playlist (§4.3.4.2), for what is not HLS (§4.3.1.1), and for a playlist with no segment', () => {
    const master = ['#EXTM3U', '#EXT-X-STREAM-INF:BANDWIDTH=800000', 'low/index.m3u8'].join('\n');
    expect(renditionOrders(master, 'hls', BASE, LIMIT)).toEqual([]);
    expect(renditionOrders('<html>not a playlist</html>', 'hls', BASE, LIMIT)).toEqual([]);
    expect(renditionOrders('#EXTM3U\n#EXT-X-TARGETDURATION:4\n', 'hls', BASE, LIMIT)).toEqual([]);
  });

  it('is none for a playlist naming more than the limit: too long to remember', () => {
    const names = Array.from({ length: 11 }, (_, n) => `s${n}.ts`);
    expect(renditionOrders(media(names), 'hls', BASE, 10)).toEqual([]);
    expect(renditionOrders(media(names.slice(0, 10)), 'hls', BASE, 10)[0]?.segments).toHaveLength(10);
  });

  it('never throws, and names each segment once, in the order first named, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('a.ts', 'b.ts', '#EXTINF:4,', '#EXT-X-TARGETDURATION:2', '#EXT-X-STREAM-INF:X=1', ''),
            fc.string(),
          ),
          { maxLength: 30 },
        ),
        (lines) => {
          const orders = renditionOrders(['#EXTM3U', ...lines].join('\n'), 'hls', BASE, LIMIT);
          for (const order of orders) {
            expect(new Set(order.segments).size).toBe(order.segments.length);
            expect(order.targetMs).toBeGreaterThan(0);
            expect(order.targetMs).toBeLessThanOrEqual(60_000);
          }
        },
      ),
    );
  });
});

describe('a DASH manifest (ISO/IEC 23009-1)', () => {
  const mpd = (
    attributes: string,
  ) => `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT12S"${attributes}>
    <Period><AdaptationSet><SegmentTemplate media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4" duration="4"/>
    <Representation id="low" bandwidth="500000"/><Representation id="high" bandwidth="3000000"/></AdaptationSet></Period></MPD>`;
  const base = new URL('https://cdn.example/dash/manifest.mpd');

  it('is one rendition per Representation, its initialization segment first, then its segments in order', () => {
    const at = (name: string) => `https://cdn.example/dash/${name}`;
    expect(renditionOrders(mpd(' maxSegmentDuration="PT4S"'), 'dash', base, LIMIT)).toEqual([
      { segments: [at('low/init.mp4'), at('low/1.m4s'), at('low/2.m4s'), at('low/3.m4s')], targetMs: 4000 },
      { segments: [at('high/init.mp4'), at('high/1.m4s'), at('high/2.m4s'), at('high/3.m4s')], targetMs: 4000 },
    ]);
  });

  it('takes DEFAULT_SEGMENT_MS without @maxSegmentDuration, and is none for a live or unreadable manifest', () => {
    expect(renditionOrders(mpd(''), 'dash', base, LIMIT).map((r) => r.targetMs)).toEqual([
      DEFAULT_SEGMENT_MS,
      DEFAULT_SEGMENT_MS,
    ]);
    expect(renditionOrders(mpd('').replace('type="static"', 'type="dynamic"'), 'dash', base, LIMIT)).toEqual([]);
    expect(renditionOrders('<MPD><Period>', 'dash', base, LIMIT)).toEqual([]);
  });
});
