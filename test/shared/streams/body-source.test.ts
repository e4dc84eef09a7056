import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyStalled, LengthMismatch, VersionChanged } from '../../../shared/http/errors.ts';
import { bodySource } from '../../../shared/streams/body-source.ts';
import { fromNextHop } from '../../../shared/streams/from-next-hop.ts';
import { drainSource, type Fault, faultyStream, patternBytes, streamOf } from '../../streams.ts';

const bytes = patternBytes;
const fast = { attempts: 3, backoffMs: 1 };

describe('bodySource: counted', () => {
  it('passes a body of exactly its length', async () => {
    expect(await drainSource(streamOf(bytes(10)), { length: 10 })).toEqual({ bytes: bytes(10), error: undefined });
  });

  it('fails a body that ends short or breaks; never reads past what it claims', async () => {
    expect((await drainSource(streamOf(bytes(7)), { length: 10 })).error).toBeInstanceOf(LengthMismatch);
    expect((await drainSource(faultyStream(bytes(10), 4, 'error'), { length: 10 })).error).toBeInstanceOf(Error);
    expect(await drainSource(streamOf(bytes(12)), { length: 10 })).toEqual({ bytes: bytes(10), error: undefined });
  });

  it('is complete once every byte it claims is in, and lets the source go without waiting for its end', async () => {
    let cancelled = false;
    const outcome = await drainSource(
      faultyStream(bytes(20), 10, 'error', 5, () => (cancelled = true)),
      { length: 10 },
    );
    expect(outcome).toEqual({ bytes: bytes(10), error: undefined });
    expect(cancelled).toBe(true);
  });

  it('bounds the silence inside a body, and lets the silent source go', async () => {
    let cancelled = false;
    const started = Date.now();
    const outcome = await drainSource(
      faultyStream(bytes(10), 4, 'stall', 3, () => (cancelled = true)),
      { length: 10, idleMs: 50 },
    );
    expect(outcome.error).toBeInstanceOf(BodyStalled);
    expect(outcome.bytes).toEqual(bytes(4));
    expect(cancelled).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('with no length known, a clean end is complete and a break is not', async () => {
    expect(await drainSource(streamOf(bytes(9)), { length: undefined })).toEqual({ bytes: bytes(9), error: undefined });
    expect((await drainSource(faultyStream(bytes(9), 3, 'error'), { length: undefined })).error).toBeInstanceOf(Error);
  });

  it('with no length known, a read under way when it is cancelled fails: never taken for the end of the body', async () => {
    const source = bodySource(faultyStream(bytes(9), 3, 'stall'), { length: undefined });
    expect(await source.read(new Uint8Array(5))).toEqual(bytes(3));
    const reading = source.read(new Uint8Array(5));
    source.cancel(new Error('given up'));
    await expect(reading).rejects.toThrow('the body was cancelled');
  });

  it('delivers exactly the bytes claimed, or fails, whatever the chunking and the buffers lent (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 9 }),
        async (actual, claimed, chunk, lend) => {
          const outcome = await drainSource(streamOf(bytes(actual), chunk), { length: claimed }, lend);
          expect(outcome.error === undefined).toBe(actual >= claimed);
          if (outcome.error === undefined) expect(outcome.bytes).toEqual(bytes(claimed));
          else expect(outcome.bytes).toEqual(bytes(actual));
        },
      ),
    );
  });
});

describe('bodySource: healing', () => {
  it('asks again from the byte reached when the body breaks, and delivers every byte once', async () => {
    const object = bytes(50);
    const offsets: number[] = [];
    const outcome = await drainSource(faultyStream(object, 17, 'error'), {
      length: 50,
      heal: {
        ...fast,
        reopen: async (offset) => {
          offsets.push(offset);
          return streamOf(object.slice(offset), 4);
        },
      },
    });
    expect(outcome).toEqual({ bytes: object, error: undefined });
    expect(offsets).toEqual([17]);
  });

  it('heals a body that ends short or falls silent, the same way', async () => {
    for (const fault of ['end', 'stall'] as const) {
      const object = bytes(40);
      const outcome = await drainSource(faultyStream(object, 25, fault), {
        length: 40,
        idleMs: 30,
        heal: { ...fast, reopen: async (offset) => streamOf(object.slice(offset)) },
      });
      expect(outcome, fault).toEqual({ bytes: object, error: undefined });
    }
  });

  it('gives up after its attempts, failing (never ending short)', async () => {
    const object = bytes(40);
    let reopened = 0;
    const outcome = await drainSource(faultyStream(object, 10, 'error'), {
      length: 40,
      heal: {
        ...fast,
        reopen: async (offset) => {
          reopened++;
          return faultyStream(object.slice(offset), 2, 'error');
        },
      },
    });
    expect(outcome.error).toBeInstanceOf(Error);
    expect(reopened).toBe(3);
    expect(outcome.bytes).toEqual(object.subarray(0, outcome.bytes.length));
  });

  it('does not heal across a version change: that fails at once', async () => {
    let reopened = 0;
    const outcome = await drainSource(faultyStream(bytes(20), 5, 'error'), {
      length: 20,
      heal: {
        ...fast,
        reopen: async () => {
          reopened++;
          throw new VersionChanged('etag mismatch');
        },
      },
    });
    expect(outcome.error).toBeInstanceOf(VersionChanged);
    expect(reopened).toBe(1);
  });

  it('stops reopening once cancelled', async () => {
    let reopened = 0;
    const source = bodySource(faultyStream(bytes(20), 5, 'stall'), {
      length: 20,
      idleMs: 20,
      heal: {
        attempts: 3,
        backoffMs: 50,
        reopen: async () => {
          reopened++;
          return streamOf(bytes(20));
        },
      },
    });
    await source.read(new Uint8Array(10));
    const pending = source.read(new Uint8Array(10)).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 30));
    source.cancel();
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reopened).toBe(0);
  });

  it('delivers exactly the object for any fault points within its attempts (property)', async () => {
    const faults = fc.constantFrom<Fault>('error', 'end', 'stall');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 59 }), faults), { maxLength: 3 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 11 }),
        async (size, cuts, chunk, lend) => {
          const object = bytes(size);
          const plan = [...cuts];
          const source = (offset: number): ReadableStream<Uint8Array> => {
            const cut = plan.shift();
            const rest = object.slice(offset);
            return cut === undefined || cut[0] >= rest.length
              ? streamOf(rest, chunk)
              : faultyStream(rest, cut[0], cut[1], chunk);
          };
          const outcome = await drainSource(
            source(0),
            { length: size, idleMs: 10, heal: { attempts: 3, backoffMs: 0, reopen: async (offset) => source(offset) } },
            lend,
          );
          expect(outcome).toEqual({ bytes: object, error: undefined });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('bodySource: over how the body was marked', () => {
  it('options given override the marks (fromNextHop); options left undefined keep them', async () => {
    const object = bytes(40);
    const reopen = async (offset: number): Promise<ReadableStream<Uint8Array>> => streamOf(object.slice(offset));
    const stalling = fromNextHop(faultyStream(object, 15, 'stall'), { idleMs: 20 });
    expect((await drainSource(stalling, { length: 40, idleMs: undefined })).error).toBeInstanceOf(BodyStalled);
    const healing = fromNextHop(faultyStream(object, 15, 'error'), { heal: { ...fast, reopen } });
    expect((await drainSource(healing, { length: 40, heal: { ...fast, attempts: 0, reopen } })).error).toBeInstanceOf(
      Error,
    );
    const unhealed = fromNextHop(faultyStream(object, 15, 'error'), { heal: { ...fast, attempts: 0, reopen } });
    expect(await drainSource(unhealed, { length: 40, heal: { ...fast, reopen } })).toEqual({
      bytes: object,
      error: undefined,
    });
  });
});
