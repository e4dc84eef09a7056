// A small valid PNG made in code, so the sample image needs no binary file in the repository.
import { crc32, deflateSync } from 'node:zlib';
import { concatBytes } from '../shared/streams/bytes.ts';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BIT_DEPTH = 8;
const COLOR_TYPE_RGB = 2;
const FILTER_NONE = 0;

/** A `size`×`size` RGB gradient (red across, green down, blue fixed) as PNG file bytes. */
export function gradientPng(size: number): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, size);
  view.setUint32(4, size);
  header.set([BIT_DEPTH, COLOR_TYPE_RGB, 0, 0, 0], 8); // deflate, adaptive filtering, no interlace
  const rowLength = 1 + size * 3;
  const pixels = new Uint8Array(rowLength * size);
  for (let y = 0; y < size; y++) {
    pixels[y * rowLength] = FILTER_NONE;
    for (let x = 0; x < size; x++) {
      pixels.set(
        [Math.round((x * 255) / (size - 1)), Math.round((y * 255) / (size - 1)), 160],
        y * rowLength + 1 + x * 3,
      );
    }
  }
  return concatBytes([
    new Uint8Array(SIGNATURE),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/** length, type, data, CRC-32 of type and data (PNG spec §5.3). */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const typeAndData = concatBytes([new TextEncoder().encode(type), data]);
  const out = new Uint8Array(8 + typeAndData.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(typeAndData, 4);
  view.setUint32(4 + typeAndData.length, crc32(typeAndData));
  return out;
}
