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
