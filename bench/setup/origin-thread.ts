// The benchmark's origin side, on a thread of its own: the site origin (site-origin.ts) and the WAN shapers in front
// of it (shaper.ts), each shaper's counts read here as they are made (shared memory).
import { Worker } from 'node:worker_threads';
import type { FromOriginThread, ToOriginThread } from './origin-worker.ts';
import { type Shaper, type ShaperOptions, sharedCounts } from './shaper.ts';
import type { BenchObject, SiteOrigin } from './site-origin.ts';

export interface OriginThread {
  origin: SiteOrigin;
  /** A shaper in front of the origin (`options.target`: the origin's URL), on the origin's thread. */
  startShaper(options: ShaperOptions): Promise<Shaper>;
}

/**
 * Starts the thread with `objects` written and served; its `origin.close()` stops the thread. On one thread with the
 * client, moving a cold download's bytes (origin, shaper, client: three copies of each byte on one event loop) capped
 * what any cache could be measured at, about 110 MiB/s on this 2-core machine, well under what tiercache's tiers can
 * take; on its own thread it is a remote origin's own machine, as it is for every target alike.
 */
export async function startOriginThread(objects: readonly BenchObject[]): Promise<OriginThread> {
  const worker = new Worker(new URL('./origin-worker.ts', import.meta.url), { workerData: { objects } });
  const waiting = new Map<number, (message: FromOriginThread) => void>();
  let ready: ((url: string) => void) | undefined;
  const started = new Promise<string>((resolve, reject) => {
    ready = resolve;
    worker.once('error', reject);
  });
  worker.on('message', (message: FromOriginThread) => {
    if (message.kind === 'ready') ready?.(message.url);
    else waiting.get(message.id)?.(message);
  });
  const ask = (message: ToOriginThread, id: number): Promise<FromOriginThread> =>
    new Promise((resolve) => {
      waiting.set(id, (answer) => {
        waiting.delete(id);
        resolve(answer);
      });
      worker.postMessage(message);
    });
  const url = await started;
  let ids = 0;
  return {
    origin: {
      url,
      close: async () => {
        await ask({ kind: 'close' }, 0);
        await worker.terminate();
      },
    },
    async startShaper(options) {
      const id = ++ids;
      const memory = new SharedArrayBuffer(3 * Float64Array.BYTES_PER_ELEMENT);
      const answer = await ask({ kind: 'shaper', id, options, counts: memory }, id);
      if (answer.kind !== 'shaper')
        throw new Error(
          `the origin thread could not start a shaper: ${answer.kind === 'failed' ? answer.message : answer.kind}`,
        );
      const counts = sharedCounts(new Float64Array(memory));
      return {
        url: answer.url,
        stats: () => ({
          connections: counts.connections,
          requests: counts.requests,
          bytesToClient: counts.bytesToClient,
        }),
        reshape: async (shape) => {
          const answer = await ask({ kind: 'reshape-shaper', id, shape }, id);
          if (answer.kind === 'failed')
            throw new Error(`the origin thread could not reshape a link: ${answer.message}`);
        },
        close: async () => void (await ask({ kind: 'close-shaper', id }, id)),
      };
    },
  };
}
