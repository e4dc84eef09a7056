// Test bodies with known bytes, and reading a response without holding it twice.

import { createHash } from 'node:crypto';

/** `length` pseudo-random bytes, the same for the same seed (xorshift32). */
export function patternBytes(seed: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads a body to its end, hashing it: the length, hash and whether it ended cleanly. */
export async function drain(
  body: ReadableStream<Uint8Array> | null,
): Promise<{ length: number; sha256: string; error: unknown }> {
  const hash = createHash('sha256');
  let length = 0;
  let error: unknown;
  try {
    const reader = body?.getReader();
    for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
      hash.update(read.value);
      length += read.value.byteLength;
    }
  } catch (caught) {
    error = caught;
  }
  return { length, sha256: hash.digest('hex'), error };
}
