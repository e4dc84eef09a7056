// The clock port (shared/clock/clock.ts): what a deployed tier judges freshness and purges by is the platform's time.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { PLATFORM_CLOCK } from '../../../shared/clock/clock.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('PLATFORM_CLOCK', () => {
  it("answers the platform's time, as it moves", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000);
    expect(PLATFORM_CLOCK.now()).toBe(1_000);
    vi.setSystemTime(61_000);
    expect(PLATFORM_CLOCK.now()).toBe(61_000);
  });
});
