// What a system started, stopped in the reverse order (the client links before the caches they front, the origin
// link last), every part tried even when one fails, so a run never leaves a daemon or a port behind.

export interface Teardown {
  /** Registers what stops a part just started. */
  add(stop: () => Promise<void>): void;
  /** Stops every part, latest first; throws the first failure once all were tried. */
  stop(): Promise<void>;
}

export function teardown(): Teardown {
  const stops: (() => Promise<void>)[] = [];
  return {
    add: (stop) => {
      stops.push(stop);
    },
    async stop() {
      const failures: unknown[] = [];
      for (let stop = stops.pop(); stop !== undefined; stop = stops.pop()) {
        await stop().catch((error: unknown) => failures.push(error));
      }
      if (failures.length > 0) throw new AggregateError(failures, `${failures.length} part(s) failed to stop`);
    },
  };
}

/** `build`'s result, or, when it throws, every part it started stopped before the error goes on. */
export async function startedOrStopped<T>(parts: Teardown, build: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (error) {
    await parts.stop().catch(() => undefined);
    throw error;
  }
}
