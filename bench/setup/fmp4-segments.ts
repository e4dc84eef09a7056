// Fragmented MP4 (ISO/IEC 14496-12 §8.8, CMAF's shape) from a progressive MP4's video track: an initialization
// segment (ftyp, moov with mvex) and one media segment (moof, mdat) per run of samples. What HLS with fMP4 segments
// (RFC 8216 §3.3) and DASH play. Pure.

import { concatBytes } from '../../shared/streams/bytes.ts';
import type { Mp4Sample, VideoTrack } from './mp4-track.ts';

const TRACK_ID = 1;
/** §8.8.3.1 sample flags: a sync sample depends on no other; any other is a non-sync sample that depends on others. */
const SYNC_FLAGS = 0x0200_0000;
const NON_SYNC_FLAGS = 0x0101_0000;

/** The initialization segment: the track's description, with no samples (they are in the fragments). */
export function initSegment(track: VideoTrack): Uint8Array {
  const matrix = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000];
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32(0),
    u32(0),
    u32(1000),
    u32(0),
    u32(0x10000),
    u16(0x100),
    u16(0),
    zeros(8),
    ...matrix.map(u32),
    zeros(24),
    u32(TRACK_ID + 1),
  );
  const tkhd = fullBox(
    'tkhd',
    0,
    3,
    u32(0),
    u32(0),
    u32(TRACK_ID),
    u32(0),
    u32(0),
    zeros(8),
    u16(0),
    u16(0),
    u16(0),
    u16(0),
    ...matrix.map(u32),
    u32(track.width << 16),
    u32(track.height << 16),
  );
  const mdhd = fullBox('mdhd', 0, 0, u32(0), u32(0), u32(track.timescale), u32(0), u16(0x55c4), u16(0));
  const hdlr = fullBox('hdlr', 0, 0, u32(0), ascii('vide'), zeros(12), ascii('VideoHandler\0'));
  const dinf = box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1)));
  const empty = (type: string) => fullBox(type, 0, 0, u32(0));
  const stbl = box(
    'stbl',
    track.stsd,
    empty('stts'),
    empty('stsc'),
    fullBox('stsz', 0, 0, u32(0), u32(0)),
    empty('stco'),
  );
  const minf = box('minf', fullBox('vmhd', 0, 1, zeros(8)), dinf, stbl);
  const trak = box('trak', tkhd, box('mdia', mdhd, hdlr, minf));
  const mvex = box('mvex', fullBox('trex', 0, 0, u32(TRACK_ID), u32(1), u32(0), u32(0), u32(0)));
  const ftyp = box('ftyp', ascii('iso6'), u32(0), ascii('iso6'), ascii('cmfc'), ascii('mp41'), ascii('dash'));
  return concatBytes([ftyp, box('moov', mvhd, trak, mvex)]);
}

/**
 * One media segment: `samples` (consecutive, the first a sync sample) in a moof with their decode time (tfdt) and a
 * trun of duration, size, flags and composition offset each, then their bytes from `file` in an mdat.
 */
export function mediaSegment(file: Uint8Array, samples: readonly Mp4Sample[], sequence: number): Uint8Array {
  const first = samples[0];
  if (first === undefined) throw new Error('a segment needs samples');
  const trunFlags = 0x000001 | 0x000100 | 0x000200 | 0x000400 | 0x000800;
  const entries = samples.flatMap((s) => [
    u32(s.duration),
    u32(s.size),
    u32(s.sync ? SYNC_FLAGS : NON_SYNC_FLAGS),
    u32(s.cto),
  ]);
  // The data offset counts from the moof's first byte (default-base-is-moof): the moof, then the mdat's header.
  const traf = (dataOffset: number) =>
    box(
      'traf',
      fullBox('tfhd', 0, 0x020000, u32(TRACK_ID)),
      fullBox('tfdt', 1, 0, u32(Math.floor(first.dts / 2 ** 32)), u32(first.dts >>> 0)),
      fullBox('trun', 1, trunFlags, u32(samples.length), u32(dataOffset), ...entries),
    );
  const moofOf = (dataOffset: number) => box('moof', fullBox('mfhd', 0, 0, u32(sequence)), traf(dataOffset));
  const moofSize = moofOf(0).byteLength;
  const mdat = box('mdat', ...samples.map((s) => file.subarray(s.offset, s.offset + s.size)));
  return concatBytes([moofOf(moofSize + 8), mdat]);
}

function box(type: string, ...payload: Uint8Array[]): Uint8Array {
  const body = concatBytes(payload);
  return concatBytes([u32(body.byteLength + 8), ascii(type), body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Uint8Array[]): Uint8Array {
  return box(type, u32(((version & 0xff) << 24) | (flags & 0xffffff)), ...payload);
}

function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value >>> 0);
  return bytes;
}

function u16(value: number): Uint8Array {
  return new Uint8Array([(value >> 8) & 0xff, value & 0xff]);
}

function zeros(length: number): Uint8Array {
  return new Uint8Array(length);
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}
