// bench:players' renditions, remuxed from local/sample-video.mp4 (30 s of real H.264 at 720p, a sync sample every
// 2 s): HLS with MPEG-TS segments behind a master playlist, HLS with fMP4 segments and an EXT-X-MAP behind one, an
// HLS byte-range playlist into one TS file, and a DASH manifest whose SegmentTemplate names fMP4 segments; each in a
// folder of its own under /video/, the folder a token is signed for. Pure: the objects an origin serves.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { concatBytes } from '../../shared/streams/bytes.ts';
import { initSegment, mediaSegment } from './fmp4-segments.ts';
import { type Mp4Sample, type VideoTrack, videoTrack } from './mp4-track.ts';
import { TsMuxer } from './ts-segments.ts';

const SAMPLE_VIDEO = fileURLToPath(new URL('../../local/sample-video.mp4', import.meta.url));
/** Two of the sample video's 2 s groups of pictures per segment: 8 segments, the last 2 s. */
const SEGMENT_SECONDS = 4;
const HLS_TYPE = 'application/vnd.apple.mpegurl';

interface MediaObject {
  body: Uint8Array;
  contentType: string;
}

/** One way of playing the video: the player, the folder its token is for, its playlist, the media it names. */
export interface PlayerCase {
  name: string;
  player: 'hls.js' | 'dash.js';
  folder: string;
  playlist: string;
  /** The segments and init sections (paths), each of which the origin should send once. */
  media: string[];
}

export interface Renditions {
  objects: Map<string, MediaObject>;
  cases: PlayerCase[];
  duration: number;
}

export function playerRenditions(): Renditions {
  const file = new Uint8Array(readFileSync(SAMPLE_VIDEO));
  const track = videoTrack(file);
  const segments = cut(track);
  const objects = new Map<string, MediaObject>();
  const put = (path: string, body: Uint8Array | string, contentType: string): void => {
    objects.set(path, { body: typeof body === 'string' ? new TextEncoder().encode(body) : body, contentType });
  };
  const durations = segments.map((samples) => seconds(track, samples));
  const duration = durations.reduce((a, b) => a + b, 0);
  const cases: PlayerCase[] = [];

  const ts = new TsMuxer(track, file);
  const tsNames = segments.map((_, i) => `seg-${i}.ts`);
  for (const [i, samples] of segments.entries()) put(`/video/ts/720p/${tsNames[i]}`, ts.segment(samples), 'video/mp2t');
  put('/video/ts/master.m3u8', master(track, 3), HLS_TYPE);
  put(
    '/video/ts/720p/index.m3u8',
    mediaPlaylist(
      3,
      durations,
      tsNames.map((name) => [name]),
    ),
    HLS_TYPE,
  );
  cases.push(
    hlsCase(
      'HLS, MPEG-TS segments',
      '/video/ts/',
      'master.m3u8',
      tsNames.map((n) => `720p/${n}`),
    ),
  );

  const m4sNames = segments.map((_, i) => `seg-${i}.m4s`);
  for (const folder of ['/video/fmp4/720p/', '/video/dash/720p/']) {
    put(`${folder}init.mp4`, initSegment(track), 'video/mp4');
    for (const [i, samples] of segments.entries())
      put(`${folder}${m4sNames[i]}`, mediaSegment(file, samples, i + 1), 'video/iso.segment');
  }
  put('/video/fmp4/master.m3u8', master(track, 7), HLS_TYPE);
  const map = ['#EXT-X-MAP:URI="init.mp4"'];
  put(
    '/video/fmp4/720p/index.m3u8',
    mediaPlaylist(
      7,
      durations,
      m4sNames.map((name) => [name]),
      map,
    ),
    HLS_TYPE,
  );
  const fmp4Media = ['720p/init.mp4', ...m4sNames.map((n) => `720p/${n}`)];
  cases.push(hlsCase('HLS, fMP4 segments', '/video/fmp4/', 'master.m3u8', fmp4Media));

  const ranges = new TsMuxer(track, file);
  const parts = segments.map((samples) => ranges.segment(samples));
  let offset = 0;
  const rangeLines = parts.map((part) => {
    const line = [`#EXT-X-BYTERANGE:${part.byteLength}@${offset}`, 'all.ts'];
    offset += part.byteLength;
    return line;
  });
  put('/video/byterange/all.ts', concatBytes(parts), 'video/mp2t');
  put('/video/byterange/index.m3u8', mediaPlaylist(4, durations, rangeLines), HLS_TYPE);
  cases.push(hlsCase('HLS, byte ranges of one TS file', '/video/byterange/', 'index.m3u8', ['all.ts']));

  put('/video/dash/manifest.mpd', dashManifest(track, segments, duration), 'application/dash+xml');
  cases.push({
    name: 'DASH, SegmentTemplate, fMP4',
    player: 'dash.js',
    folder: '/video/dash/',
    playlist: '/video/dash/manifest.mpd',
    media: fmp4Media.map((path) => `/video/dash/${path}`),
  });
  return { objects, cases, duration };
}

function hlsCase(name: string, folder: string, playlist: string, media: string[]): PlayerCase {
  return { name, player: 'hls.js', folder, playlist: `${folder}${playlist}`, media: media.map((m) => `${folder}${m}`) };
}

/** The samples cut at sync samples, SEGMENT_SECONDS each (the last shorter). */
function cut(track: VideoTrack): Mp4Sample[][] {
  const segments: Mp4Sample[][] = [];
  for (const sample of track.samples) {
    const current = segments.at(-1);
    const start = current?.[0];
    if (
      current === undefined ||
      start === undefined ||
      (sample.sync && sample.dts - start.dts >= SEGMENT_SECONDS * track.timescale)
    )
      segments.push([sample]);
    else current.push(sample);
  }
  return segments;
}

function seconds(track: VideoTrack, samples: readonly Mp4Sample[]): number {
  return samples.reduce((total, s) => total + s.duration, 0) / track.timescale;
}

/** A master playlist naming the one variant in 720p/ (RFC 8216 §4.3.4.2). */
function master(track: VideoTrack, version: number): string {
  return [
    '#EXTM3U',
    `#EXT-X-VERSION:${version}`,
    `#EXT-X-STREAM-INF:BANDWIDTH=2600000,RESOLUTION=${track.width}x${track.height},CODECS="${track.codec}"`,
    '720p/index.m3u8',
    '',
  ].join('\n');
}

/** A VOD media playlist: each segment's EXTINF, then its lines (a URI, or a byte range and a URI). */
function mediaPlaylist(version: number, durations: number[], lines: string[][], head: string[] = []): string {
  return [
    '#EXTM3U',
    `#EXT-X-VERSION:${version}`,
    `#EXT-X-TARGETDURATION:${Math.ceil(Math.max(...durations))}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    '# Remuxed from local/sample-video.mp4 by bench/setup/player-renditions.ts',
    ...head,
    ...durations.flatMap((d, i) => [`#EXTINF:${d.toFixed(3)},`, ...(lines[i] ?? [])]),
    '#EXT-X-ENDLIST',
    '',
  ].join('\n');
}

/** A static MPD (ISO/IEC 23009-1) with a SegmentTemplate over a SegmentTimeline of the segments' decode times. */
function dashManifest(track: VideoTrack, segments: Mp4Sample[][], duration: number): string {
  const timeline = segments
    .map((samples) => `<S t="${samples[0]?.dts ?? 0}" d="${samples.reduce((total, s) => total + s.duration, 0)}"/>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" profiles="urn:mpeg:dash:profile:isoff-live:2011" minBufferTime="PT2S" mediaPresentationDuration="PT${duration.toFixed(3)}S">
  <!-- Remuxed from local/sample-video.mp4 by bench/setup/player-renditions.ts -->
  <Period id="0" start="PT0S">
    <AdaptationSet contentType="video" mimeType="video/mp4" segmentAlignment="true" startWithSAP="1">
      <SegmentTemplate timescale="${track.timescale}" initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/seg-$Number$.m4s" startNumber="0">
        <SegmentTimeline>${timeline}</SegmentTimeline>
      </SegmentTemplate>
      <Representation id="720p" codecs="${track.codec}" bandwidth="2600000" width="${track.width}" height="${track.height}" frameRate="30"/>
    </AdaptationSet>
  </Period>
</MPD>
`;
}
