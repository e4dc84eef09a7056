// The test clock as a tier reads it (local/test-clock.ts): asked once per request by the local entries, it answers the
// test clock's time, moved on by the real time since; where none is bound, the tier keeps the platform's time.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TestClock, testClocked } from '../../local/test-clock.ts';

/** A TEST_CLOCK binding answering `text`, as the local stack's does with the fake time. */
function service(text: string) {
  return { fetch: async () => new Response(text) };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(1_000);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('TestClock', () => {
  it("answers the test clock's time once asked, moved on by the real time since", async () => {
    const clock = new TestClock(service('61000'));
    await clock.ask();
    expect(clock.now()).toBe(61_000);
    vi.setSystemTime(1_500);
    expect(clock.now()).toBe(61_500);
  });

  it('answers the real time until it is asked', () => {
    expect(new TestClock(service('61000')).now()).toBe(1_000);
  });

  it('answers the real time when the test clock answers something other than a time', async () => {
    const clock = new TestClock(service('soon'));
    await clock.ask();
    expect(clock.now()).toBe(1_000);
  });
});

describe('testClocked', () => {
  it('leaves a tier without a test clock to the platform time (deployed, and a stack without one)', () => {
    expect(testClocked<{ TEST_CLOCK?: ReturnType<typeof service>; A?: string }>()({ A: 'a' })).toBeUndefined();
  });

  it('hands the tier its bindings with the test clock as CLOCK, the same object for the same env each time', async () => {
    const clocked = testClocked<{ TEST_CLOCK?: ReturnType<typeof service>; A?: string }>();
    const env = { TEST_CLOCK: service('61000'), A: 'a' };
    const first = clocked(env);
    expect(first?.env.A).toBe('a');
    expect(first?.env.CLOCK).toBe(first?.clock);
    // The tiers parse their configuration once per bindings object (worker/env.ts, shield/env.ts).
    expect(clocked(env)?.env).toBe(first?.env);
    await first?.clock.ask();
    expect(clocked(env)?.env.CLOCK.now()).toBe(61_000);
  });
});
