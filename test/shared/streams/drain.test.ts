import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drain } from '../../../shared/streams/drain.ts';
import { faultyStream, patternBytes, streamOf } from '../../streams.ts';

/** A byte stream (BYOB-readable) of `length` bytes, handing each read what the buffer lent holds; `reads` counts them. */
function byteStream(length: number, counted: { reads: number }): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(controller) {
      const request = controller.byobRequest;
      if (offset >= length) {
        controller.close();
        request?.respond(0);
        return;
      }
      if (request?.view == null) throw new Error('expected a BYOB read');
      counted.reads++;
      const taken = Math.min(request.view.byteLength, length - offset);
      offset += taken;
      request.respond(taken);
    },
  }) as ReadableStream<Uint8Array>;
}

describe('drain', () => {
  it('reads a body to its end and counts its bytes, whatever its chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 5000 }), fc.integer({ min: 1, max: 700 }), async (length, chunk) => {
        expect(await drain(streamOf(patternBytes(length), chunk))).toEqual({ bytes: length });
      }),
    );
  });

  it('moves a byte stream through one buffer of a mebibyte, a few reads for many megabytes', async () => {
    const counted = { reads: 0 };
    expect(await drain(byteStream(8 * 1024 * 1024 + 5, counted))).toEqual({ bytes: 8 * 1024 * 1024 + 5 });
    expect(counted.reads).toBe(9);
  });

  it('says how far a broken body got, and never rejects', async () => {
    const drained = await drain(faultyStream(patternBytes(100), 40, 'error', 10));
    expect(drained.bytes).toBe(40);
    expect(drained.error).toBeInstanceOf(Error);
  });

  it('counts no bytes of no body', async () => {
    expect(await drain(null)).toEqual({ bytes: 0 });
  });
});
