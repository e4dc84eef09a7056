// emptyBody (shared/streams/empty-body.ts): content of length 0, not the absence of content.

import { describe, expect, it } from 'vitest';
import { emptyBody } from '../../../shared/streams/empty-body.ts';

describe('emptyBody', () => {
  it('is a stream that ends at once, holding no bytes', async () => {
    const reader = emptyBody().getReader();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('is a new stream each time: one read to its end leaves the next unread', async () => {
    const first = emptyBody();
    await new Response(first).arrayBuffer();
    const second = emptyBody();
    expect(second).not.toBe(first);
    expect(second.locked).toBe(false);
    expect((await new Response(second).arrayBuffer()).byteLength).toBe(0);
  });
});
