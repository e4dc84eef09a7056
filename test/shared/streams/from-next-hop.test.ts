import { describe, expect, it } from 'vitest';
import { bodySource, type SourceOptions } from '../../../shared/streams/body-source.ts';
import { fromNextHop, nextHopOptions } from '../../../shared/streams/from-next-hop.ts';

import { concat, faultyStream, streamOf } from '../../streams.ts';
import { BodyStalled } from '../../../shared/http/errors.ts';

const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 29 + 7) & 0xff);
const fast = { attempts: 3, backoffMs: 1 };

/** Every byte of a source, or the error it failed with, read through buffers of `lend` bytes. */
async function drain(first: ReadableStream<Uint8Array>, options: SourceOptions, lend = 5): Promise<{ bytes: Uint8Array; error: unknown }> {
  const source = bodySource(first, options);
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const view = await source.read(new Uint8Array(lend));
      if (view === undefined) return { bytes: concat(chunks), error: undefined };
      chunks.push(view.slice());
    }
  } catch (error) {
    return { bytes: concat(chunks), error };
  }
}

describe('fromNextHop', () => {
  it('marks a body with how to heal it, which any reader through bodySource then does', async () => {
    const object = bytes(40);
    const body = fromNextHop(faultyStream(object, 15, 'error'), { heal: { ...fast, reopen: async (offset) => streamOf(object.slice(offset)) } });
    expect(await drain(body, { length: 40 })).toEqual({ bytes: object, error: undefined });
  });

  it('and with its silence bound', async () => {
    const body = fromNextHop(faultyStream(bytes(40), 15, 'stall'), { idleMs: 20 });
    expect((await drain(body, { length: 40 })).error).toBeInstanceOf(BodyStalled);
  });

  it('hands back the body itself, unwrapped', () => {
    const body = streamOf(bytes(4));
    expect(fromNextHop(body, { idleMs: 20 })).toBe(body);
  });
});

describe('nextHopOptions', () => {
  it('is how the body was marked, and nothing for a body never marked', () => {
    const options = { idleMs: 20, heal: { ...fast, reopen: async () => streamOf(bytes(4)) } };
    const marked = fromNextHop(streamOf(bytes(4)), options);
    expect(nextHopOptions(marked)).toBe(options);
    expect(nextHopOptions(streamOf(bytes(4)))).toBeUndefined();
  });

  it('is the latest marking of a body marked twice', () => {
    const body = fromNextHop(streamOf(bytes(4)), { idleMs: 20 });
    fromNextHop(body, { idleMs: 50 });
    expect(nextHopOptions(body)).toEqual({ idleMs: 50 });
  });
});
