// Urgency (shared/tier/slice-reader/isolate-pool.ts): read-ahead waits while a request waits for a byte it needs now.

import { describe, expect, it } from 'vitest';
import { Urgency } from '../../../../shared/tier/slice-reader/isolate-pool.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Urgency', () => {
  it('lets read-ahead go at once when nobody waits', async () => {
    const started = Date.now();
    await new Urgency().clear(1000);
    expect(Date.now() - started).toBeLessThan(50);
  });

  it('holds read-ahead until the last request waiting for a byte has it', async () => {
    const urgency = new Urgency();
    const first = urgency.begin();
    const second = urgency.begin();
    let cleared = false;
    const clear = urgency.clear(5000).then(() => (cleared = true));
    first();
    // The same request saying it twice counts once.
    first();
    await tick(10);
    expect(cleared).toBe(false);
    second();
    await clear;
    expect(cleared).toBe(true);
  });

  it('holds read-ahead no longer than its bound, whoever still waits', async () => {
    const urgency = new Urgency();
    urgency.begin();
    const started = Date.now();
    await urgency.clear(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
