import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LengthMismatch } from '../../shared/counted-body.ts';
import { healingBody } from '../../shared/healing-body.ts';
import { VersionChanged } from '../../shared/upstream.ts';
import { type Fault, faultyStream, readOutcome, streamOf } from '../streams.ts';

const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 29 + 7) & 0xff);
const fast = { attempts: 3, backoffMs: 1, idleMs: 30 };

describe('healingBody', () => {
  it('asks again from the byte reached when the body breaks, and delivers every byte once', async () => {
    const object = bytes(50);
    const offsets: number[] = [];
    const body = healingBody(faultyStream(object, 17, 'error'), 50, {
      ...fast,
      reopen: async (offset) => {
        offsets.push(offset);
        return streamOf(object.slice(offset), 4);
      },
    });
    const outcome = await readOutcome(body);
    expect(outcome.error).toBeUndefined();
    expect(outcome.bytes).toEqual(object);
    expect(offsets).toEqual([17]);
  });

  it('heals a body that ends short or falls silent, the same way', async () => {
    for (const fault of ['end', 'stall'] as const) {
      const object = bytes(40);
      const outcome = await readOutcome(healingBody(faultyStream(object, 25, fault), 40, { ...fast, reopen: async (offset) => streamOf(object.slice(offset)) }));
      expect(outcome.error, fault).toBeUndefined();
      expect(outcome.bytes, fault).toEqual(object);
    }
  });

  it('gives up after its attempts, erroring the stream (never closing it short)', async () => {
    const object = bytes(40);
    let reopened = 0;
    const outcome = await readOutcome(healingBody(faultyStream(object, 10, 'error'), 40, {
      ...fast,
      reopen: async (offset) => {
        reopened++;
        return faultyStream(object.slice(offset), 2, 'error');
      },
    }));
    expect(outcome.error).toBeInstanceOf(Error);
    expect(reopened).toBe(3);
    expect(outcome.bytes).toEqual(object.subarray(0, outcome.bytes.length));
  });

  it('does not heal across a version change: that fails at once', async () => {
    let reopened = 0;
    const outcome = await readOutcome(healingBody(faultyStream(bytes(20), 5, 'error'), 20, {
      ...fast,
      reopen: async () => {
        reopened++;
        throw new VersionChanged('etag mismatch');
      },
    }));
    expect(outcome.error).toBeInstanceOf(VersionChanged);
    expect(reopened).toBe(1);
  });

  it('takes nothing of a body that runs past its length, and asks again from there', async () => {
    const object = bytes(20);
    const long = new Uint8Array(30);
    long.set(object);
    const outcome = await readOutcome(healingBody(streamOf(long, 30), 20, { ...fast, reopen: async (offset) => streamOf(object.slice(offset)) }));
    expect(outcome.error).toBeUndefined();
    expect(outcome.bytes).toEqual(object);
    const never = await readOutcome(healingBody(streamOf(long, 30), 20, { ...fast, reopen: async () => streamOf(long, 30) }));
    expect(never.error).toBeInstanceOf(LengthMismatch);
  });

  it('stops reopening once cancelled', async () => {
    let reopened = 0;
    const body = healingBody(faultyStream(bytes(20), 5, 'stall'), 20, { ...fast, idleMs: 20, backoffMs: 50, reopen: async () => (reopened++, streamOf(bytes(20))) });
    const reader = body.getReader();
    await reader.read();
    const pending = reader.read();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await reader.cancel();
    await pending.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reopened).toBe(0);
  });

  it('delivers exactly the object for any fault points within its attempts (property)', async () => {
    const faults = fc.constantFrom<Fault>('error', 'end', 'stall');
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 60 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 59 }), faults), { maxLength: 3 }), fc.integer({ min: 1, max: 9 }), async (size, cuts, chunk) => {
      const object = bytes(size);
      const plan = [...cuts];
      const source = (offset: number): ReadableStream<Uint8Array> => {
        const cut = plan.shift();
        const rest = object.slice(offset);
        return cut === undefined || cut[0] >= rest.length ? streamOf(rest, chunk) : faultyStream(rest, cut[0], cut[1], chunk);
      };
      const outcome = await readOutcome(healingBody(source(0), size, { attempts: 3, backoffMs: 0, idleMs: 10, reopen: async (offset) => source(offset) }));
      expect(outcome.error).toBeUndefined();
      expect(outcome.bytes).toEqual(object);
    }), { numRuns: 60 });
  });
});
