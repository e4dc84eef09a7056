// The test clock as a tier reads it: the local stack binds TEST_CLOCK (tier-options.ts clockBinding), a Node function
// answering the time a test has moved to, so that entries age without the test sleeping. A tier cannot wait on a
// service binding each time it reads the time, so its local entry (local-edge.ts, local-shield.ts) asks once per
// request, before the tier runs, and hands the tier a Clock (shared/clock/clock.ts) that answers that time plus the
// real time since. The deployed tiers have no such binding: they read the platform's time.

import type { Clock } from '../shared/clock/clock.ts';

/** The part of a service binding the clock is asked through. */
export interface ClockService {
  fetch(request: Request): Promise<Response>;
}

/** A tier's bindings as the local stack gives them: TEST_CLOCK where a test moves the clock. */
export interface TestClockEnv {
  TEST_CLOCK?: ClockService;
}

/** The bindings a tier is handed with its test clock (its CLOCK), and that clock to ask before each request. */
export interface ClockedEnv<E> {
  env: E & { CLOCK: Clock };
  clock: TestClock;
}

/** The test clock's time as last asked (`ask`), moved on by the real time since: what `now()` answers. */
export class TestClock implements Clock {
  readonly #service: ClockService;
  /** How far the test clock was ahead of the real one when last asked (ms); 0 until then, or after a non-time. */
  #lead = 0;

  constructor(service: ClockService) {
    this.#service = service;
  }

  /** Asks the test clock its time: `now()` answers by it until the next ask. */
  async ask(): Promise<void> {
    const answer = await this.#service.fetch(new Request('http://test-clock.internal/now'));
    const fake = Number(await answer.text());
    // The real time once it answered: `now()` then reads the test clock's time exactly.
    this.#lead = Number.isFinite(fake) ? fake - Date.now() : 0;
  }

  now(): number {
    return Date.now() + this.#lead;
  }
}

/**
 * For a local entry: the bindings it hands its tier with the test clock, made once per bindings object (the tier parses
 * its configuration once per `env`, worker/env.ts, shield/env.ts, so the same object must come each time), or
 * undefined where no TEST_CLOCK is bound (the tier keeps the platform's time).
 */
export function testClocked<E extends TestClockEnv>(): (env: E) => ClockedEnv<E> | undefined {
  const made = new WeakMap<E, ClockedEnv<E>>();
  return (env) => {
    const service = env.TEST_CLOCK;
    if (service === undefined) return undefined;
    let clocked = made.get(env);
    if (clocked === undefined) {
      const clock = new TestClock(service);
      clocked = { env: { ...env, CLOCK: clock }, clock };
      made.set(env, clocked);
    }
    return clocked;
  };
}
