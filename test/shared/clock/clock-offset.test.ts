// clockOffset (shared/clock/clock-offset.ts): the test clock's lead, 0 where none is bound.

import { describe, expect, it } from 'vitest';
import { clockOffset } from '../../../shared/clock/clock-offset.ts';

/** A TEST_CLOCK binding answering `text`, as the local stack's does with the fake time. */
function clock(text: string) {
  return { fetch: async () => new Response(text) };
}

describe('clockOffset', () => {
  it('is 0 where no test clock is bound (deployed)', async () => {
    expect(await clockOffset(undefined, 1_000)).toBe(0);
  });

  it("is how far the test clock's time is ahead of the real one", async () => {
    expect(await clockOffset(clock('61000'), 1_000)).toBe(60_000);
  });

  it('is 0 when the test clock answers something other than a time', async () => {
    expect(await clockOffset(clock('soon'), 1_000)).toBe(0);
  });
});
