import { describe, expect, it } from 'vitest';
import { type BodySource, bodySource } from '../../../shared/streams/body-source.ts';
import { CHUNK_BYTES, pumpInto } from '../../../shared/streams/pump-into.ts';

import { concat, faultyStream, patternBytes, streamOf } from '../../streams.ts';

const bytes = patternBytes;

/** A BodySource over `chunks` that records the buffer lent to each read, answering in the memory lent. */
function recording(chunks: readonly Uint8Array[]): { source: BodySource; lent: ArrayBufferLike[] } {
  const lent: ArrayBufferLike[] = [];
  let next = 0;
  const source: BodySource = {
    delivered: 0,
    read: async (into) => {
      lent.push(into.buffer);
      const chunk = chunks[next++];
      if (chunk === undefined) return undefined;
      into.set(chunk);
      return into.subarray(0, chunk.byteLength);
    },
    cancel: () => undefined,
  };
  return { source, lent };
}

describe('pumpInto', () => {
  it('writes every byte after those it skips, through one reused buffer', async () => {
    const written: Uint8Array[] = [];
    await pumpInto(
      bodySource(streamOf(bytes(200_000), 30_000), { length: 200_000 }),
      async (chunk) => void written.push(chunk.slice()),
      54_321,
    );
    expect(concat(written)).toEqual(bytes(200_000).subarray(54_321));
  });

  it('lends one buffer of CHUNK_BYTES, lent again once its write is done', async () => {
    const { source, lent } = recording([bytes(10), bytes(20), bytes(5)]);
    const written: number[] = [];
    await pumpInto(source, async (chunk) => void written.push(chunk.byteLength));
    expect(written).toEqual([10, 20, 5]);
    expect(lent).toHaveLength(4);
    expect(lent[0]?.byteLength).toBe(CHUNK_BYTES);
    expect(lent.every((buffer) => buffer === lent[0])).toBe(true);
  });

  it('skips whole reads, then part of one, and writes nothing for a skip past the end', async () => {
    const writes = async (skip: number): Promise<Uint8Array[]> => {
      const written: Uint8Array[] = [];
      await pumpInto(
        recording([bytes(4), bytes(4), bytes(4)]).source,
        async (chunk) => void written.push(chunk.slice()),
        skip,
      );
      return written;
    };
    expect(await writes(4)).toEqual([bytes(4), bytes(4)]);
    expect(await writes(6)).toEqual([bytes(4).subarray(2), bytes(4)]);
    expect(await writes(12)).toEqual([]);
    expect(await writes(20)).toEqual([]);
  });

  it('fails as the source fails, after writing what came before', async () => {
    const written: Uint8Array[] = [];
    const pumped = pumpInto(
      bodySource(faultyStream(bytes(20), 9, 'error'), { length: 20 }),
      async (chunk) => void written.push(chunk.slice()),
    );
    await expect(pumped).rejects.toThrow('connection reset');
    expect(concat(written)).toEqual(bytes(9));
  });
});
