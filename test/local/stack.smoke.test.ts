// The local stack itself: the S3 origin, the tap and the workers in Miniflare do what the
// integration tests and `npm start` rely on.
import { createServer } from 'node:net';
import { crc32, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIG_ASSET_KEY,
  BIG_ASSET_SEED,
  BIG_ASSET_SIZE,
  expectedSha256,
  type SeededAsset,
  sampleAssets,
  sampleVideo,
  seedSampleAssets,
  VIDEO_ASSET_KEY,
} from '../../local/assets.ts';
import { type S3Origin, startS3Origin } from '../../local/origin.ts';
import { createS3Client, type S3Client, S3RequestError } from '../../local/s3-client.ts';
import { INDEX_HTML } from '../../local/sample-site.ts';
import { sha256Hex } from '../../local/sha256.ts';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { startTap, type Tap } from './origin-tap.ts';

/** The default slice size (shared/config/limits.ts). */
const SLICE = 8 * 1024 * 1024;
const TRICKY_KEYS = [
  'with space/and more.txt',
  'ünïcødé/日本語.txt',
  'a+b=c&d.txt',
  "bang!'()*.txt",
  'tilde~dash-dot.under_score',
];

let origin: S3Origin;
let client: S3Client;
let seeded: SeededAsset[];

beforeAll(async () => {
  origin = await startS3Origin();
  client = clientFor(origin.url);
  seeded = await seedSampleAssets(origin);
});

afterAll(() => origin?.close());

describe('the embedded S3 origin', () => {
  it.each(TRICKY_KEYS)('stores and serves the key %j through signed requests', async (key) => {
    await origin.putObject(key, `body of ${key}`, { 'content-type': 'text/plain' });
    const answer = await client.getObject(key);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(`body of ${key}`);
    await origin.deleteObject(key);
    await expect(client.headObject(key)).rejects.toMatchObject({ status: 404 });
  });

  it('refuses a request that carries no signature, as a private bucket does', async () => {
    const answer = await fetch(`${origin.url}/${origin.bucket}/index.html`);
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('refuses a wrong signature with the S3 error code', async () => {
    const impostor = createS3Client({
      endpoint: origin.url,
      bucket: origin.bucket,
      accessKeyId: origin.accessKeyId,
      secretAccessKey: 'wrong',
    });
    const refusal = await impostor.putObject('nope.txt', 'x').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(S3RequestError);
    expect(refusal).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('fails an upload whose stream is shorter than its declared length', async () => {
    const upload = origin.putObject(
      'short.bin',
      (async function* () {
        yield new Uint8Array(10);
      })(),
      { 'content-length': '11' },
    );
    await expect(upload).rejects.toThrow(/content-length/i);
  });
});

describe('the seeded sample assets', () => {
  it('are all stored with their size and content type', async () => {
    expect(seeded.map((asset) => asset.key)).toEqual([
      'index.html',
      'css/site.css',
      'js/app.js',
      'img/logo.png',
      VIDEO_ASSET_KEY,
      'data/catalog.json',
      BIG_ASSET_KEY,
    ]);
    for (const asset of seeded) {
      const head = await client.headObject(asset.key);
      expect(head.headers.get('content-length'), asset.key).toBe(String(asset.size));
      expect(head.headers.get('content-type'), asset.key).toBe(asset.contentType);
    }
  });

  it('include the 64 MiB object byte for byte', async () => {
    const answer = await client.getObject(BIG_ASSET_KEY);
    expect(answer.headers.get('content-length')).toBe(String(BIG_ASSET_SIZE));
    expect(await sha256Hex(answer.body ?? '')).toBe(await expectedSha256(BIG_ASSET_SEED, BIG_ASSET_SIZE));
  });

  it('include a logo that is a well-formed PNG', async () => {
    const png = new Uint8Array(await (await client.getObject('img/logo.png')).arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const chunks = pngChunks(png);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(chunks.every((chunk) => chunk.crcValid)).toBe(true);
    const idat = chunks[1]?.data ?? new Uint8Array(0);
    expect(inflateSync(idat).length).toBe(64 * (1 + 64 * 3)); // 64 rows of filter byte + RGB
  });

  it('include a video a browser plays from its first range, cut in two by the default 8 MiB slices', async () => {
    const video = sampleVideo();
    expect(seeded.find((asset) => asset.key === VIDEO_ASSET_KEY)).toEqual({
      key: VIDEO_ASSET_KEY,
      contentType: 'video/mp4',
      size: video.length,
    });
    expect(video.length).toBeGreaterThan(SLICE);
    expect(video.length).toBeLessThanOrEqual(2 * SLICE);
    // ISO/IEC 14496-12 boxes: ftyp first, then the index (moov) before the media data (mdat).
    const boxes = topLevelBoxes(video);
    expect(boxes[0]).toBe('ftyp');
    expect(boxes.indexOf('moov')).toBeGreaterThan(0);
    expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    expect(new TextDecoder().decode(video.subarray(8, 12))).toBe('isom');
    expect(await sha256Hex((await client.getObject(VIDEO_ASSET_KEY)).body ?? '')).toBe(await sha256Hex(video));
  });

  it('show the video on the home page in a <video> element', () => {
    expect(INDEX_HTML).toContain(`<video id="sample" src="/${VIDEO_ASSET_KEY}" controls`);
  });

  it('come out the same on every run', async () => {
    const [first, second] = [sampleAssets(), sampleAssets()];
    for (const [index, asset] of first.entries()) {
      expect(await sha256Hex(asset.body)).toBe(await sha256Hex(second[index]?.body ?? ''));
    }
  });
});

describe('the origin tap', () => {
  let tap: Tap;
  beforeAll(async () => (tap = await startTap(origin.url)));
  afterAll(() => tap?.close());

  it('records a signed upload exactly as the origin received it, and the origin accepts it', async () => {
    tap.clear();
    await clientFor(tap.url).putObject('tapped/a b+c.txt', 'through the tap', { 'content-type': 'text/plain' });
    expect(tap.requests).toHaveLength(1);
    const [put] = tap.requests;
    expect(put).toMatchObject({ method: 'PUT', path: '/assets/tapped/a%20b%2Bc.txt', status: 200 });
    expect(put?.headers.host).toBe(new URL(tap.url).host);
    expect(put?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=S3RVER\//);
    expect(await (await client.getObject('tapped/a b+c.txt')).text()).toBe('through the tap');
  });

  it('answers 502 when its origin cannot be reached', async () => {
    const deadTap = await startTap(`http://127.0.0.1:${await freePort()}`);
    try {
      const answer = await fetch(`${deadTap.url}/anything`);
      expect(answer.status).toBe(502);
      expect(deadTap.requests[0]).toMatchObject({ method: 'GET', path: '/anything', status: 502 });
    } finally {
      await deadTap.close();
    }
  });
});

describe('the workers in Miniflare', () => {
  let tap: Tap;
  let stack: Stack;
  beforeAll(async () => {
    tap = await startTap(origin.url);
    stack = await startWorkers({
      config: {
        ORIGIN_KIND: 's3',
        ORIGIN_URL: tap.url,
        S3_BUCKET: origin.bucket,
        S3_ACCESS_KEY_ID: origin.accessKeyId,
        S3_SECRET_ACCESS_KEY: origin.secretAccessKey,
        SHIELD_TOKEN: 'smoke',
      },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    await tap?.close();
  });

  it('serve the edge over HTTP on loopback', async () => {
    expect(stack.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await fetch(`${stack.url}/index.html`);
    expect(answer.status).toBeGreaterThanOrEqual(200);
    await answer.arrayBuffer();
  });

  it('serve the sample video as a browser reads it: by ranges, through slices of the default 8 MiB, byte for byte', async () => {
    const video = sampleVideo();
    tap.clear();
    // A seek lands across the slice boundary: the edge needs both slices.
    const answer = await fetch(`${stack.url}/${VIDEO_ASSET_KEY}`, {
      headers: { range: `bytes=${SLICE - 1000}-${SLICE + 999}` },
    });
    expect(answer.status).toBe(206);
    expect(answer.headers.get('content-type')).toBe('video/mp4');
    expect(answer.headers.get('content-range')).toBe(`bytes ${SLICE - 1000}-${SLICE + 999}/${video.length}`);
    expect(new Uint8Array(await answer.arrayBuffer())).toEqual(video.subarray(SLICE - 1000, SLICE + 1000));
    const ranges = tap.requests
      .filter((request) => request.path === `/${origin.bucket}/${VIDEO_ASSET_KEY}` && request.method === 'GET')
      .map((request) => request.headers.range);
    expect(ranges.sort()).toEqual([`bytes=0-${SLICE - 1}`, `bytes=${SLICE}-${video.length - 1}`]);
    const whole = await fetch(`${stack.url}/${VIDEO_ASSET_KEY}`);
    expect(whole.status).toBe(200);
    expect(await sha256Hex(new Uint8Array(await whole.arrayBuffer()))).toBe(await sha256Hex(video));
  });

  it('also expose the shield on a direct socket of its own', async () => {
    expect(stack.shieldUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stack.shieldUrl).not.toBe(stack.url);
    const answer = await fetch(`${stack.shieldUrl}/index.html`);
    expect(answer.status).toBeGreaterThanOrEqual(200);
    await answer.arrayBuffer();
  });
});

describe('a stack with resolved host names', () => {
  it('sends the shield fetch for an unresolvable name to the mapped address, Host and path unchanged', async () => {
    const tap = await startTap(origin.url);
    const tapPort = new URL(tap.url).port;
    // Path-style on a name that does not resolve: the presigned signature covers that Host.
    const presigned = await clientFor(`http://s3.tiercache.test:${tapPort}`).presignedUrl('index.html');
    const stack = await startWorkers({
      config: {},
      resolve: { 's3.tiercache.test': `127.0.0.1:${tapPort}` },
      entries: { shield: 'test/local/fixtures/relay-shield.ts' },
    });
    try {
      const answer = await fetch(`${stack.shieldUrl}/?url=${encodeURIComponent(presigned)}`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('<title>tiercache sample</title>');
      const [received] = tap.requests;
      expect(received?.headers.host).toBe(`s3.tiercache.test:${tapPort}`);
      expect(`http://s3.tiercache.test:${tapPort}${received?.path}`).toBe(presigned);
      expect(received?.status).toBe(200);
    } finally {
      await stack.dispose();
      await tap.close();
    }
  });

  it('answers 502 for a mapped name whose address does not answer', async () => {
    const port = await freePort();
    const stack = await startWorkers({
      config: {},
      resolve: { 'gone.tiercache.test': `127.0.0.1:${port}` },
      entries: { shield: 'test/local/fixtures/relay-shield.ts' },
    });
    try {
      const answer = await fetch(`${stack.shieldUrl}/?url=${encodeURIComponent('http://gone.tiercache.test/x')}`);
      expect(answer.status).toBe(502);
      expect(await answer.text()).toContain('gone.tiercache.test');
    } finally {
      await stack.dispose();
    }
  });
});

describe('shutting down', () => {
  it('frees every port the stack listened on', async () => {
    const ownOrigin = await startS3Origin();
    const tap = await startTap(ownOrigin.url);
    const stack = await startWorkers({ config: {} });
    const ports = [ownOrigin.url, tap.url, stack.url, stack.shieldUrl].map((url) => Number(new URL(url).port));
    await stack.dispose();
    await tap.close();
    await ownOrigin.close();
    for (const port of ports) expect(await canListen(port), `port ${port}`).toBe(true);
  });
});

function clientFor(endpoint: string): S3Client {
  return createS3Client({
    endpoint,
    bucket: origin.bucket,
    accessKeyId: origin.accessKeyId,
    secretAccessKey: origin.secretAccessKey,
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** The types of an MP4's top-level boxes, in order (each: a 32-bit size, then its type). */
function topLevelBoxes(file: Uint8Array): string[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const types: string[] = [];
  for (let offset = 0; offset + 8 <= file.length; ) {
    const size = view.getUint32(offset);
    types.push(new TextDecoder().decode(file.subarray(offset + 4, offset + 8)));
    if (size < 8) break; // 0 (to the end) or 1 (64-bit size): not used by this file's boxes
    offset += size;
  }
  return types;
}

interface PngChunk {
  type: string;
  data: Uint8Array;
  crcValid: boolean;
}

function pngChunks(png: Uint8Array): PngChunk[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const chunks: PngChunk[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = view.getUint32(offset);
    const typeAndData = png.subarray(offset + 4, offset + 8 + length);
    chunks.push({
      type: new TextDecoder().decode(typeAndData.subarray(0, 4)),
      data: typeAndData.subarray(4),
      crcValid: crc32(typeAndData) === view.getUint32(offset + 8 + length),
    });
    offset += 12 + length;
  }
  return chunks;
}
