// cancelPrefetched (shared/tier/resolved.ts): the slices discovery brought, let go of.

import { describe, expect, it } from 'vitest';
import { cancelPrefetched } from '../../../shared/tier/resolved.ts';

/** A body that records whether it was cancelled. */
function body(cancelled: number[], index: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ cancel: () => void cancelled.push(index) });
}

describe('cancelPrefetched', () => {
  it('cancels every slice discovery brought when the read takes none of them', async () => {
    const cancelled: number[] = [];
    await cancelPrefetched({ prefetched: new Map([0, 3].map((index) => [index, body(cancelled, index)])) });
    expect(cancelled).toEqual([0, 3]);
  });

  it('leaves the slices the read takes, and starts every cancel at once', () => {
    const cancelled: number[] = [];
    void cancelPrefetched({ prefetched: new Map([0, 1, 2].map((index) => [index, body(cancelled, index)])) }, [1]);
    expect(cancelled).toEqual([0, 2]);
  });

  it('settles even when a cancel fails (a body already locked by its reader)', async () => {
    const locked = new ReadableStream<Uint8Array>();
    locked.getReader();
    await expect(cancelPrefetched({ prefetched: new Map([[0, locked]]) })).resolves.toBeUndefined();
  });
});
