// The sample site seeded into the embedded origin: a few small typed files, a real video a browser
// plays, and one large binary for range and slice tests.
import { readFileSync } from 'node:fs';
import type { S3Origin } from './origin.ts';
import { gradientPng } from './png.ts';
import { APP_JS, BIG_ASSET_KEY, CATALOG, INDEX_HTML, SITE_CSS, VIDEO_ASSET_KEY } from './sample-site.ts';
import { sha256Hex } from './sha256.ts';

export { BIG_ASSET_KEY, VIDEO_ASSET_KEY };

/**
 * 30 s of ffmpeg's testsrc2 pattern with a clock, H.264 (High) at 2.4 Mbit/s, its index first
 * (faststart) so that a browser plays it from the first range: 9,005,671 bytes, just over one
 * 8 MiB slice, so the default slicing cuts it in two. Committed: a fresh machine has no encoder.
 * Made with ffmpeg 5.1 (two passes):
 *   ffmpeg -f lavfi -i
 * "testsrc2=size=1280x720:rate=30:duration=30,drawtext=fontfile=DejaVuSans-Bold.ttf:text='tiercache sample
 * video':fontsize=56:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=16:x=(w-text_w)/2:y=h/2-120,drawtext=fontfile=DejaVuSans-Bold.ttf:text='%{pts\:hms}':fontsize=96:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=16:x=(w-text_w)/2:y=h/2"
 *     -c:v libx264 -preset slow -b:v 2400k -pass 1|2 -pix_fmt yuv420p -profile:v high -g 60 -movflags +faststart -an
 * local/sample-video.mp4
 */
const VIDEO_FILE = new URL('sample-video.mp4', import.meta.url);
/** The large binary is made at start from a PRNG seeded with this, never committed. */
export const BIG_ASSET_SEED = 0x7ece_ca4e;
export const BIG_ASSET_SIZE = 64 * 1024 * 1024;
/** Multiple of 4, so chunk boundaries never split a PRNG word. */
const CHUNK_BYTES = 1024 * 1024;

export interface SeededAsset {
  key: string;
  contentType: string;
  /** Bytes stored (the object's Content-Length). */
  size: number;
}

/** An asset with its content; a streamed `body` can be iterated again for the same bytes. */
export interface SampleAsset extends SeededAsset {
  body: Uint8Array | AsyncIterable<Uint8Array>;
}

/** Uploads every sample asset through the S3 API and answers what was stored. */
export async function seedSampleAssets(origin: Pick<S3Origin, 'putObject'>): Promise<SeededAsset[]> {
  const assets = sampleAssets();
  await Promise.all(
    assets.map(({ key, contentType, size, body }) =>
      origin.putObject(key, body, { 'content-type': contentType, 'content-length': String(size) }),
    ),
  );
  return assets.map(({ key, contentType, size }) => ({ key, contentType, size }));
}

export function sampleAssets(): SampleAsset[] {
  const text = (key: string, contentType: string, content: string): SampleAsset => {
    const body = new TextEncoder().encode(content);
    return { key, contentType, size: body.length, body };
  };
  const logo = gradientPng(64);
  return [
    text('index.html', 'text/html; charset=utf-8', INDEX_HTML),
    text('css/site.css', 'text/css; charset=utf-8', SITE_CSS),
    text('js/app.js', 'text/javascript; charset=utf-8', APP_JS),
    { key: 'img/logo.png', contentType: 'image/png', size: logo.length, body: logo },
    { key: VIDEO_ASSET_KEY, contentType: 'video/mp4', size: sampleVideo().length, body: sampleVideo() },
    text('data/catalog.json', 'application/json', `${JSON.stringify(CATALOG, null, 2)}\n`),
    {
      key: BIG_ASSET_KEY,
      contentType: 'application/octet-stream',
      size: BIG_ASSET_SIZE,
      body: deterministicBytes(BIG_ASSET_SEED, BIG_ASSET_SIZE),
    },
  ];
}

let video: Uint8Array | undefined;

/** The committed sample video's bytes, read once. */
export function sampleVideo(): Uint8Array {
  video ??= new Uint8Array(readFileSync(VIDEO_FILE));
  return video;
}

/**
 * `length` pseudo-random bytes fixed by `seed` (xoshiro128**, seeded by splitmix32), in 1 MiB
 * chunks. Every iteration starts over and yields fresh buffers: a consumer such as a socket
 * may still hold a chunk after asking for the next one, so buffers are never reused.
 */
export function deterministicBytes(seed: number, length: number): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      const state = seedState(seed);
      for (let offset = 0; offset < length; offset += CHUNK_BYTES) {
        const size = Math.min(CHUNK_BYTES, length - offset);
        const words = new Uint32Array(Math.ceil(size / 4));
        fillRandom(state, words);
        yield new Uint8Array(words.buffer, 0, size);
      }
    },
  };
}

/** Hex SHA-256 of `deterministicBytes(seed, length)`, computed without holding the bytes. */
export function expectedSha256(seed: number, length: number): Promise<string> {
  return sha256Hex(deterministicBytes(seed, length));
}

/** splitmix32 spreads one 32-bit seed over xoshiro's 128-bit state (never all zero). */
function seedState(seed: number): Uint32Array {
  const state = new Uint32Array(4);
  let x = seed >>> 0;
  for (let i = 0; i < 4; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    state[i] = (z ^ (z >>> 16)) >>> 0;
  }
  return state;
}

/** xoshiro128** (Blackman & Vigna), one 32-bit output per word; words land little-endian on every host we run on. */
function fillRandom(state: Uint32Array, words: Uint32Array): void {
  let s0 = state[0] ?? 0,
    s1 = state[1] ?? 0,
    s2 = state[2] ?? 0,
    s3 = state[3] ?? 0;
  for (let i = 0; i < words.length; i++) {
    const r = Math.imul(s1, 5);
    words[i] = Math.imul((r << 7) | (r >>> 25), 9);
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = (s3 << 11) | (s3 >>> 21);
  }
  state.set([s0, s1, s2, s3]);
}
