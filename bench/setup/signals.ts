// SIGINT and SIGTERM kept for the benchmark's own clean-up, away from Miniflare's listeners.

/**
 * Miniflare's own SIGINT/SIGTERM listeners kill workerd and exit on the spot, leaving behind what a benchmark started
 * beside it (peers, an origin's directory, a 1 GiB object, say): as in local/start.ts, signals stay ours.
 * `onSignal` answers SIGINT and SIGTERM, and any other listener added for them later (Miniflare's)
 * is taken off again. Answers a function that undoes both.
 */
export function keepSignals(onSignal: () => void): () => void {
  const keep = (event: string | symbol, listener: (...args: unknown[]) => void) => {
    if ((event === 'SIGINT' || event === 'SIGTERM') && listener !== onSignal)
      queueMicrotask(() => process.off(event, listener));
  };
  process.on('newListener', keep).on('SIGINT', onSignal).on('SIGTERM', onSignal);
  return () => void process.off('newListener', keep).off('SIGINT', onSignal).off('SIGTERM', onSignal);
}

/**
 * What a benchmark started, stopped last-started first, each failure let go: on its way out (`all`), and on SIGINT or
 * SIGTERM, after which it exits 130. Signals stay the benchmark's (keepSignals) until `releaseSignals`.
 */
export class Stops {
  private readonly list: (() => Promise<void>)[] = [];
  private readonly release: () => void;

  constructor() {
    this.release = keepSignals(() => void this.all().finally(() => process.exit(130)));
  }

  push(stop: () => Promise<void>): void {
    this.list.push(stop);
  }

  /** Stops everything pushed so far. */
  async all(): Promise<void> {
    for (const stop of this.list.splice(0).reverse()) await stop().catch(() => undefined);
  }

  releaseSignals(): void {
    this.release();
  }
}
