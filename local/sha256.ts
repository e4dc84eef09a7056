// SHA-256 for Node tooling: the hash smithy's SignatureV4 needs (its Checksum interface,
// HMAC when given a secret) and a streaming digest for checking bodies in tests.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';

/** smithy `Checksum` over node:crypto; `new Sha256(secret)` is HMAC-SHA256 keyed with `secret`. */
export class Sha256 implements Checksum {
  readonly digestLength = 32;
  readonly #secret: Uint8Array | string | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#secret = secret === undefined ? undefined : bytes(secret);
    this.#hash = this.#fresh();
  }

  update(chunk: Uint8Array): void {
    this.#hash.update(chunk);
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret);
  }
}

/** Hex SHA-256 of a whole body, read chunk by chunk (a 64 MiB stream is never held at once). */
export async function sha256Hex(
  body: Uint8Array | string | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
): Promise<string> {
  const hash = createHash('sha256');
  if (typeof body === 'string' || body instanceof Uint8Array) {
    hash.update(body);
  } else if (body instanceof ReadableStream) {
    const reader = body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) hash.update(read.value);
  } else {
    for await (const chunk of body) hash.update(chunk);
  }
  return hash.digest('hex');
}

function bytes(data: SourceData): Uint8Array | string {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}
