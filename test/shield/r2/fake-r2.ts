// An R2 bucket in a Map, as the R2 tier's store port (shield/r2/r2-cache.ts R2Store) sees one: objects whole or not
// at all, custom metadata beside them, a listing in key order with a cursor. And the faults a real bucket may show,
// each a switch: a read whose body ends short of the object's size, an object whose size is not what was put, a bucket
// answering every call with an error (R2's own "internal error" or "temporarily unavailable", which a binding throws).

import type { R2Body, R2Listed, R2Store } from '../../../shield/r2/r2-cache.ts';

interface Kept {
  bytes: Uint8Array;
  customMetadata: Record<string, string>;
}

export class FakeR2 implements R2Store {
  readonly objects = new Map<string, Kept>();
  /** Operations made, by kind (a put and a list are Class A, a get and a head Class B; a delete is free). */
  readonly operations = { get: 0, head: 0, put: 0, delete: 0, list: 0 };
  /** When set, the next body read breaks after this many bytes (the object's size still the whole); then unset. */
  cutReadsAfter: number | undefined;
  /** When set, every call rejects as a binding does when R2 answers an error. */
  failing = false;

  async get(key: string): Promise<R2Body | null> {
    this.operations.get++;
    this.fail();
    const kept = this.objects.get(key);
    if (kept === undefined) return null;
    const { bytes } = kept;
    const cut = this.cutReadsAfter;
    this.cutReadsAfter = undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (cut === undefined) {
          if (bytes.byteLength > 0) controller.enqueue(bytes.slice());
          controller.close();
          return;
        }
        controller.enqueue(bytes.slice(0, cut));
        controller.error(new Error('the connection to R2 broke'));
      },
    });
    return { key, size: bytes.byteLength, customMetadata: { ...kept.customMetadata }, body };
  }

  async head(key: string): Promise<R2Listed | null> {
    this.operations.head++;
    this.fail();
    const kept = this.objects.get(key);
    return kept === undefined ? null : { key, size: kept.bytes.byteLength, customMetadata: { ...kept.customMetadata } };
  }

  async put(
    key: string,
    value: ReadableStream | Uint8Array,
    options: { customMetadata: Record<string, string> },
  ): Promise<unknown> {
    this.operations.put++;
    this.fail();
    // Read whole before anything is kept: a body that breaks rejects here, and the object before it stays.
    const bytes = value instanceof Uint8Array ? value.slice() : new Uint8Array(await new Response(value).arrayBuffer());
    this.objects.set(key, { bytes, customMetadata: { ...options.customMetadata } });
    return { key, size: bytes.byteLength };
  }

  async delete(keys: string | string[]): Promise<void> {
    this.operations.delete++;
    this.fail();
    for (const key of typeof keys === 'string' ? [keys] : keys) this.objects.delete(key);
  }

  async list(options: { prefix: string; cursor?: string; limit: number }): Promise<{
    objects: R2Listed[];
    truncated: boolean;
    cursor?: string;
  }> {
    this.operations.list++;
    this.fail();
    const keys = [...this.objects.keys()].filter((key) => key.startsWith(options.prefix)).sort();
    const from = options.cursor === undefined ? 0 : keys.findIndex((key) => key > (options.cursor as string));
    const page = (from === -1 ? [] : keys.slice(from)).slice(0, options.limit);
    const truncated = from !== -1 && from + page.length < keys.length;
    const objects = page.map((key) => {
      const kept = this.objects.get(key) as Kept;
      return { key, size: kept.bytes.byteLength, customMetadata: { ...kept.customMetadata } };
    });
    return { objects, truncated, ...(truncated ? { cursor: page.at(-1) as string } : {}) };
  }

  private fail(): void {
    if (this.failing) throw new Error('We encountered an internal error. Please try again. (10001)');
  }

  /** Replaces an object's bytes, its metadata as it was: an object whose size is no longer the one put. */
  corrupt(key: string, bytes: Uint8Array): void {
    const kept = this.objects.get(key);
    if (kept === undefined) throw new Error(`no object ${key}`);
    kept.bytes = bytes;
  }
}
