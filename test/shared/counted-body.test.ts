import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyStalled, LengthMismatch, countedBody } from '../../shared/counted-body.ts';
import { faultyStream, readOutcome, streamOf } from '../streams.ts';

const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 13 + 5) & 0xff);

describe('countedBody', () => {
  it('is complete once every byte it claims is in, without waiting for the source to end', async () => {
    let cancelled = false;
    const outcome = await readOutcome(countedBody(faultyStream(bytes(20), 10, 'error', 5, () => (cancelled = true)), 10));
    expect(outcome.error).toBeUndefined();
    expect(outcome.bytes).toEqual(bytes(10));
    expect(cancelled).toBe(true);
  });

  it('passes a body of exactly its length and says so', async () => {
    const heard: number[] = [];
    const outcome = await readOutcome(countedBody(streamOf(bytes(10)), 10, { onExact: (n) => heard.push(n) }));
    expect(outcome.error).toBeUndefined();
    expect(outcome.bytes).toEqual(bytes(10));
    expect(heard).toEqual([10]);
  });

  it('errors (never closes) a body that ends short, runs long or breaks, and says why first', async () => {
    for (const [source, length] of [[streamOf(bytes(7)), 10], [streamOf(bytes(12)), 10], [faultyStream(bytes(10), 4, 'error'), 10]] as const) {
      const heard: Error[] = [];
      const outcome = await readOutcome(countedBody(source, length, { onInexact: (error) => heard.push(error) }));
      expect(outcome.error).toBeInstanceOf(Error);
      expect(heard).toHaveLength(1);
      expect(outcome.bytes.length).toBeLessThanOrEqual(10);
    }
    const short = await readOutcome(countedBody(streamOf(bytes(7)), 10));
    expect(short.error).toBeInstanceOf(LengthMismatch);
  });

  it('bounds the silence inside a body, and cancels the silent source', async () => {
    let cancelled = false;
    const started = Date.now();
    const outcome = await readOutcome(countedBody(faultyStream(bytes(10), 4, 'stall', 3, () => (cancelled = true)), 10, { idleMs: 50 }));
    expect(outcome.error).toBeInstanceOf(BodyStalled);
    expect(outcome.bytes).toEqual(bytes(4));
    expect(cancelled).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('with no length known, only a clean end counts as complete', async () => {
    const exact: number[] = [];
    expect((await readOutcome(countedBody(streamOf(bytes(9)), undefined, { onExact: (n) => exact.push(n) }))).error).toBeUndefined();
    expect(exact).toEqual([9]);
    expect((await readOutcome(countedBody(faultyStream(bytes(9), 3, 'error'), undefined))).error).toBeInstanceOf(Error);
  });

  it('a cancel is neither exact nor inexact: the reader let go', async () => {
    const heard: string[] = [];
    let cancelled = false;
    const body = countedBody(streamOf(bytes(30), 3, () => (cancelled = true)), 30, { onExact: () => heard.push('exact'), onInexact: () => heard.push('inexact') });
    const reader = body.getReader();
    await reader.read();
    await reader.cancel();
    expect(heard).toEqual([]);
    expect(cancelled).toBe(true);
  });

  it('never passes more bytes than it claims, whatever the chunking (property)', async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 7 }), async (actual, claimed, chunk) => {
      const outcome = await readOutcome(countedBody(streamOf(bytes(actual), chunk), claimed));
      expect(outcome.bytes.length).toBeLessThanOrEqual(claimed);
      // Complete once every claimed byte is in: a longer source is then not read further,
      // unless a chunk ran past the claim.
      const complete = actual === claimed || (actual > claimed && claimed % chunk === 0);
      expect(outcome.error === undefined).toBe(complete);
      if (complete) expect(outcome.bytes.length).toBe(claimed);
      expect(outcome.bytes).toEqual(bytes(actual).subarray(0, outcome.bytes.length));
    }));
  });
});
