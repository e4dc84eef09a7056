// MPEG-2 transport stream (ISO/IEC 13818-1) from a progressive MP4's H.264 track: each segment opens with a PAT and
// a PMT, then each sample as one PES packet in Annex B form (an access unit delimiter, the parameter sets before a
// sync sample, each NAL unit after a start code), in 188-byte packets with a PCR on the video PID. What HLS with TS
// segments plays (RFC 8216 §3.2). Pure.

import { concatBytes } from '../../shared/streams/bytes.ts';
import type { Mp4Sample, VideoTrack } from './mp4-track.ts';

const PACKET = 188;
const PMT_PID = 0x1000;
const VIDEO_PID = 0x100;
/** H.264 (ISO/IEC 13818-1 Table 2-34). */
const STREAM_TYPE_H264 = 0x1b;
const START_CODE = new Uint8Array([0, 0, 0, 1]);
const ACCESS_UNIT_DELIMITER = new Uint8Array([0, 0, 0, 1, 0x09, 0xf0]);
const MPEG_CLOCK = 90_000;

/** A stream cut into segments: one muxer, so that continuity counters run on from one segment to the next. */
export class TsMuxer {
  readonly #track: VideoTrack;
  readonly #file: Uint8Array;
  readonly #counters = new Map<number, number>();

  constructor(track: VideoTrack, file: Uint8Array) {
    this.#track = track;
    this.#file = file;
  }

  /** One segment of `samples` (consecutive, the first a sync sample). */
  segment(samples: readonly Mp4Sample[]): Uint8Array {
    const packets = [this.#section(0, pat()), this.#section(PMT_PID, pmt())];
    for (const sample of samples) packets.push(...this.#pes(sample));
    return concatBytes(packets);
  }

  #section(pid: number, section: Uint8Array): Uint8Array {
    // pointer_field 0, then the section, the rest of the packet stuffed with 0xff (§2.4.4.2).
    const payload = new Uint8Array(PACKET - 4).fill(0xff);
    payload[0] = 0;
    payload.set(section, 1);
    return concatBytes([this.#header(pid, true, false), payload]);
  }

  #pes(sample: Mp4Sample): Uint8Array[] {
    const scale = (time: number) => Math.round((time * MPEG_CLOCK) / this.#track.timescale);
    const dts = scale(sample.dts);
    const pts = scale(sample.dts + sample.cto);
    const header = concatBytes([
      new Uint8Array([0, 0, 1, 0xe0, 0, 0, 0x80, 0xc0, 10]),
      timestamp(0x3, pts),
      timestamp(0x1, dts),
    ]);
    const data = concatBytes([header, ...this.#annexB(sample)]);
    const packets: Uint8Array[] = [];
    for (let at = 0; at < data.byteLength; ) {
      const first = at === 0;
      // The first packet carries the PCR (the decode time) and, for a sync sample, random_access_indicator.
      const adaptation: Uint8Array = first ? pcrField(dts, sample.sync) : new Uint8Array();
      const room = PACKET - 4 - adaptation.byteLength;
      const chunk = data.subarray(at, at + room);
      at += chunk.byteLength;
      const stuffed = stuffing(adaptation, room - chunk.byteLength);
      packets.push(concatBytes([this.#header(VIDEO_PID, first, stuffed.byteLength > 0), stuffed, chunk]));
    }
    return packets;
  }

  /** The sample's NAL units, length-prefixed in the MP4, each after a start code; the parameter sets first at a sync sample. */
  #annexB(sample: Mp4Sample): Uint8Array[] {
    const parts: Uint8Array[] = [ACCESS_UNIT_DELIMITER];
    if (sample.sync) for (const set of [...this.#track.sps, ...this.#track.pps]) parts.push(START_CODE, set);
    const bytes = this.#file.subarray(sample.offset, sample.offset + sample.size);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at + 4 <= bytes.byteLength; ) {
      const length = view.getUint32(at);
      const nal = bytes.subarray(at + 4, at + 4 + length);
      // An access unit delimiter of its own is left out: one was written first.
      if (((nal[0] ?? 0) & 0x1f) !== 9) parts.push(START_CODE, nal);
      at += 4 + length;
    }
    return parts;
  }

  /** A packet's 4-byte header (§2.4.3.2): sync byte, payload_unit_start, PID, adaptation field, continuity counter. */
  #header(pid: number, unitStart: boolean, adaptation: boolean): Uint8Array {
    const counter = this.#counters.get(pid) ?? 0;
    this.#counters.set(pid, (counter + 1) & 0xf);
    return new Uint8Array([
      0x47,
      (unitStart ? 0x40 : 0) | ((pid >> 8) & 0x1f),
      pid & 0xff,
      (adaptation ? 0x30 : 0x10) | counter,
    ]);
  }
}

/** The PAT: program 1 in the PMT's PID (§2.4.4.3). */
function pat(): Uint8Array {
  return withCrc([0x00, 0xb0, 13, 0x00, 0x01, 0xc1, 0x00, 0x00, 0x00, 0x01, 0xe0 | (PMT_PID >> 8), PMT_PID & 0xff]);
}

/** The PMT: one H.264 stream, which carries the PCR (§2.4.4.8). */
function pmt(): Uint8Array {
  const pid = [0xe0 | (VIDEO_PID >> 8), VIDEO_PID & 0xff];
  return withCrc([
    0x02,
    0xb0,
    18,
    0x00,
    0x01,
    0xc1,
    0x00,
    0x00,
    ...pid,
    0xf0,
    0x00,
    STREAM_TYPE_H264,
    ...pid,
    0xf0,
    0x00,
  ]);
}

/** A PTS or DTS field (§2.4.3.7): a 4-bit prefix, then 33 bits with marker bits. */
function timestamp(prefix: number, time: number): Uint8Array {
  const high = Math.floor(time / 2 ** 30) & 0x7;
  const mid = Math.floor(time / 2 ** 15) & 0x7fff;
  const low = time & 0x7fff;
  return new Uint8Array([
    (prefix << 4) | (high << 1) | 1,
    mid >> 7,
    ((mid & 0x7f) << 1) | 1,
    low >> 7,
    ((low & 0x7f) << 1) | 1,
  ]);
}

/** An adaptation field with a PCR (§2.4.3.4): its length, flags, 33-bit base and 9-bit extension (0). */
function pcrField(base: number, randomAccess: boolean): Uint8Array {
  const field = new Uint8Array(8);
  field[0] = 7;
  field[1] = 0x10 | (randomAccess ? 0x40 : 0);
  field[2] = Math.floor(base / 2 ** 25) & 0xff;
  field[3] = Math.floor(base / 2 ** 17) & 0xff;
  field[4] = Math.floor(base / 2 ** 9) & 0xff;
  field[5] = Math.floor(base / 2) & 0xff;
  field[6] = ((base & 1) << 7) | 0x7e;
  field[7] = 0;
  return field;
}

/** `adaptation` grown by `extra` stuffing bytes (0xff), or made for them: a packet's last payload is short. */
function stuffing(adaptation: Uint8Array, extra: number): Uint8Array {
  if (extra === 0) return adaptation;
  if (adaptation.byteLength > 0) {
    const grown = concatBytes([adaptation, new Uint8Array(extra).fill(0xff)]);
    grown[0] = (grown[0] ?? 0) + extra;
    return grown;
  }
  // A field of its own: its length byte (and, for two bytes or more, a flags byte) count in the room.
  if (extra === 1) return new Uint8Array([0]);
  const field = new Uint8Array(extra).fill(0xff);
  field[0] = extra - 1;
  field[1] = 0;
  return field;
}

/** A section with its CRC_32 (Annex A: the MPEG-2 polynomial 0x04c11db7, no reflection, initial 0xffffffff). */
function withCrc(section: number[]): Uint8Array {
  let crc = 0xffff_ffff;
  for (const byte of section) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000_0000 ? (crc << 1) ^ 0x04c1_1db7 : crc << 1;
  }
  crc >>>= 0;
  return new Uint8Array([...section, crc >>> 24, (crc >>> 16) & 0xff, (crc >>> 8) & 0xff, crc & 0xff]);
}
