// The video track of a progressive MP4 (ISO/IEC 14496-12), read into its samples: where each lies in the file, its
// decode time, composition offset and whether it is a sync sample, and the sample description a player needs. What
// bench:players remuxes local/sample-video.mp4 from (into MPEG-TS and fragmented MP4): real H.264 a browser decodes,
// with no encoder on the machine. Pure.

export interface Mp4Sample {
  offset: number;
  size: number;
  /** Decode time, in the track's timescale. */
  dts: number;
  duration: number;
  /** Composition offset (ctts): presentation time is dts + cto. */
  cto: number;
  sync: boolean;
}

export interface VideoTrack {
  timescale: number;
  width: number;
  height: number;
  /** The whole `stsd` box, copied into an init segment as it is. */
  stsd: Uint8Array;
  /** The avcC record's parameter sets (ISO/IEC 14496-15 §5.3.3), for Annex B streams. */
  sps: Uint8Array[];
  pps: Uint8Array[];
  /** The RFC 6381 codecs string (`avc1.64001f`). */
  codec: string;
  samples: Mp4Sample[];
}

interface Box {
  type: string;
  /** Where its payload starts and the box ends. */
  start: number;
  end: number;
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);

/** The file's first video track; throws when it has none, or its sample table is not one this reader knows. */
export function videoTrack(file: Uint8Array): VideoTrack {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const found = new Map<string, Box>();
  const walk = (start: number, end: number): void => {
    for (let at = start; at + 8 <= end; ) {
      let size = view.getUint32(at);
      const type = String.fromCharCode(...file.subarray(at + 4, at + 8));
      let header = 8;
      if (size === 1) {
        size = Number(view.getBigUint64(at + 8));
        header = 16;
      }
      if (size === 0) size = end - at;
      // Only the first track: the sample video has one.
      if (!found.has(type)) found.set(type, { type, start: at + header, end: at + size });
      if (CONTAINERS.has(type) && !(type === 'trak' && found.get('trak')?.start !== at + header)) {
        walk(at + header, at + size);
      }
      at += size;
    }
  };
  walk(0, file.byteLength);
  const box = (type: string): Box => {
    const b = found.get(type);
    if (b === undefined) throw new Error(`the MP4 has no ${type} box`);
    return b;
  };
  const entries = (type: string, width: number): number[][] => {
    const b = box(type);
    const count = view.getUint32(b.start + 4);
    return Array.from({ length: count }, (_, i) =>
      Array.from({ length: width }, (_, j) => view.getUint32(b.start + 8 + (i * width + j) * 4)),
    );
  };
  const mdhd = box('mdhd');
  const timescale = view.getUint32(mdhd.start + (file[mdhd.start] === 1 ? 20 : 12));
  const tkhd = box('tkhd');
  const tkhdEnd = tkhd.end;
  const stsd = box('stsd');
  const avc = avcConfig(file, within(file, view, stsd, 'avcC'));
  const samples = sampleTable(view, box('stsz'), entries, found.has('co64'));
  return {
    timescale,
    width: view.getUint32(tkhdEnd - 8) >>> 16,
    height: view.getUint32(tkhdEnd - 4) >>> 16,
    stsd: file.slice(stsd.start - 8, stsd.end),
    ...avc,
    samples,
  };
}

/** The box of `type` inside `parent`'s payload (the avcC inside stsd's avc1 entry), found by its type's bytes. */
function within(file: Uint8Array, view: DataView, parent: Box, type: string): Box {
  const code = [...type].map((char) => char.charCodeAt(0));
  for (let at = parent.start + 4; at + 4 <= parent.end; at++) {
    if (code.every((byte, i) => file[at + i] === byte))
      return { type, start: at + 4, end: at - 4 + view.getUint32(at - 4) };
  }
  throw new Error(`the MP4's ${parent.type} holds no ${type}`);
}

/** Each sample's place, times and sync flag, from stsz, stco (or co64), stsc, stts, ctts and stss. */
function sampleTable(
  view: DataView,
  stsz: Box,
  entries: (type: string, width: number) => number[][],
  wide: boolean,
): Mp4Sample[] {
  const fixed = view.getUint32(stsz.start + 4);
  const count = view.getUint32(stsz.start + 8);
  const sizes = Array.from({ length: count }, (_, i) => fixed || view.getUint32(stsz.start + 12 + i * 4));
  const chunks = wide
    ? entries('co64', 2).map(([high = 0, low = 0]) => high * 2 ** 32 + low)
    : entries('stco', 1).map(([offset = 0]) => offset);
  const stsc = entries('stsc', 3);
  const durations = entries('stts', 2).flatMap(([n = 0, d = 0]) => Array<number>(n).fill(d));
  let ctts: number[] = [];
  try {
    ctts = entries('ctts', 2).flatMap(([n = 0, offset = 0]) => Array<number>(n).fill(offset | 0));
  } catch {
    // No ctts: every sample is presented when it is decoded.
  }
  let syncs: Set<number> | undefined;
  try {
    syncs = new Set(entries('stss', 1).map(([n = 0]) => n - 1));
  } catch {
    // No stss: every sample is a sync sample.
  }
  const samples: Mp4Sample[] = [];
  let index = 0;
  let dts = 0;
  chunks.forEach((chunkOffset, chunk) => {
    const run = stsc.filter(([first = 0]) => first - 1 <= chunk).at(-1);
    let offset = chunkOffset;
    for (let n = 0; n < (run?.[1] ?? 0) && index < count; n++, index++) {
      const size = sizes[index] ?? 0;
      const duration = durations[index] ?? 0;
      samples.push({ offset, size, dts, duration, cto: ctts[index] ?? 0, sync: syncs?.has(index) ?? true });
      offset += size;
      dts += duration;
    }
  });
  return samples;
}

/** The avcC record: its parameter sets and codecs string; NAL lengths of 4 bytes are what this reader knows. */
function avcConfig(file: Uint8Array, avcC: Box): Pick<VideoTrack, 'sps' | 'pps' | 'codec'> {
  const at = avcC.start;
  if (((file[at + 4] ?? 0) & 3) !== 3) throw new Error('the avcC record does not use 4-byte NAL lengths');
  const hex = (byte: number | undefined) => (byte ?? 0).toString(16).padStart(2, '0');
  const codec = `avc1.${hex(file[at + 1])}${hex(file[at + 2])}${hex(file[at + 3])}`;
  let position = at + 5;
  const sets = (count: number): Uint8Array[] =>
    Array.from({ length: count }, () => {
      const length = ((file[position] ?? 0) << 8) | (file[position + 1] ?? 0);
      const set = file.slice(position + 2, position + 2 + length);
      position += 2 + length;
      return set;
    });
  const sps = sets((file[position++] ?? 0) & 0x1f);
  const pps = sets(file[position++] ?? 0);
  return { sps, pps, codec };
}
