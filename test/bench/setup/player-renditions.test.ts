import { describe, expect, it } from 'vitest';
import { playerRenditions } from '../../../bench/setup/player-renditions.ts';
import { dashUris } from '../../../shared/playlists/dash-uris.ts';
import { hlsUris } from '../../../shared/playlists/hls-uris.ts';

const renditions = playerRenditions();
const bytesOf = (path: string): Uint8Array => {
  const object = renditions.objects.get(path);
  if (object === undefined) throw new Error(`no ${path}`);
  return object.body;
};
const text = (path: string): string => new TextDecoder().decode(bytesOf(path));

describe('bench:players’ renditions of the sample video', () => {
  it('plays 30 s four ways, each in a folder of its own under /video/, every medium it names there', () => {
    expect(renditions.duration).toBeCloseTo(30, 3);
    expect(renditions.cases.map((c) => c.folder)).toEqual([
      '/video/ts/',
      '/video/fmp4/',
      '/video/byterange/',
      '/video/dash/',
    ]);
    for (const c of renditions.cases) {
      expect(c.playlist.startsWith(c.folder)).toBe(true);
      for (const path of c.media) expect(renditions.objects.has(path), path).toBe(true);
    }
  });

  it('names in each HLS playlist only objects it holds, and each variant’s segments once (byte ranges aside)', () => {
    for (const path of [...renditions.objects.keys()].filter((p) => p.endsWith('.m3u8'))) {
      for (const named of hlsUris(text(path))) {
        const target = new URL(named.uri, `https://cdn.example${path}`).pathname;
        expect(renditions.objects.has(target), `${path} names ${named.uri}`).toBe(true);
      }
    }
  });

  it('names in the DASH manifest, its template filled, the init section and every segment', () => {
    const { uris } = dashUris(text('/video/dash/manifest.mpd'));
    const [init, media] = [uris.find((u) => u.uri.includes('init')), uris.find((u) => u.uri.includes('$Number$'))];
    expect(bytesOf(`/video/dash/${init?.uri.replace('$RepresentationID$', '720p')}`).byteLength).toBeGreaterThan(0);
    for (let n = 0; n < 8; n++)
      expect(
        renditions.objects.has(
          `/video/dash/${media?.uri.replace('$RepresentationID$', '720p').replace('$Number$', String(n))}`,
        ),
      ).toBe(true);
  });

  it('writes transport streams of whole 188-byte packets, each a sync byte, a PAT and a PMT first, counters continuous', () => {
    const stream = bytesOf('/video/byterange/all.ts');
    expect(stream.byteLength % 188).toBe(0);
    const last = new Map<number, number>();
    const wrong: string[] = [];
    for (let at = 0; at < stream.byteLength; at += 188) {
      if (stream[at] !== 0x47) wrong.push(`no sync byte at ${at}`);
      const pid = pidAt(stream, at);
      const counter = (stream[at + 3] ?? 0) & 0xf;
      const before = last.get(pid);
      if (before !== undefined && counter !== ((before + 1) & 0xf))
        wrong.push(`PID ${pid} counter ${counter} at ${at}`);
      last.set(pid, counter);
    }
    expect(wrong).toEqual([]);
    const first = bytesOf('/video/ts/720p/seg-0.ts');
    // PID 0 (the PAT), then the PMT's PID, each opening a section (payload_unit_start).
    expect([pidAt(first, 0), pidAt(first, 188), (first[1] ?? 0) & 0x40, (first[189] ?? 0) & 0x40]).toEqual([
      0, 0x1000, 0x40, 0x40,
    ]);
  });

  it('writes fMP4 segments as a moof whose trun points at its mdat, sizes adding up', () => {
    const init = bytesOf('/video/fmp4/720p/init.mp4');
    expect(new TextDecoder().decode(init.subarray(4, 8))).toBe('ftyp');
    const segment = bytesOf('/video/fmp4/720p/seg-1.m4s');
    const view = new DataView(segment.buffer, segment.byteOffset, segment.byteLength);
    const moofSize = view.getUint32(0);
    expect(new TextDecoder().decode(segment.subarray(moofSize + 4, moofSize + 8))).toBe('mdat');
    const trun = indexOf(segment, 'trun');
    const count = view.getUint32(trun + 8);
    expect(view.getUint32(trun + 12)).toBe(moofSize + 8);
    let total = 0;
    for (let i = 0; i < count; i++) total += view.getUint32(trun + 16 + i * 16 + 4);
    expect(moofSize + 8 + total).toBe(segment.byteLength);
  });
});

function pidAt(stream: Uint8Array, at: number): number {
  return (((stream[at + 1] ?? 0) & 0x1f) << 8) | (stream[at + 2] ?? 0);
}

function indexOf(bytes: Uint8Array, type: string): number {
  const code = [...type].map((c) => c.charCodeAt(0));
  for (let at = 0; at < bytes.byteLength; at++) if (code.every((b, i) => bytes[at + i] === b)) return at;
  throw new Error(`no ${type}`);
}
