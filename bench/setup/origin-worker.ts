// The body of the origin thread (origin-thread.ts): the site origin and the shapers in front of
// it, each started on the main thread's word, their counts kept in memory it shares.
import { parentPort, workerData } from 'node:worker_threads';
import { type LinkShape, type Shaper, sharedCounts, startShaper } from './shaper.ts';
import { type BenchObject, startSiteOrigin } from './site-origin.ts';

export type ToOriginThread =
  | { kind: 'shaper'; id: number; options: Parameters<typeof startShaper>[0]; counts: SharedArrayBuffer }
  | { kind: 'close-shaper'; id: number }
  | { kind: 'reshape-shaper'; id: number; shape: LinkShape }
  | { kind: 'close' };

export type FromOriginThread =
  | { kind: 'ready'; url: string }
  | { kind: 'shaper'; id: number; url: string }
  | { kind: 'closed'; id: number }
  | { kind: 'failed'; id: number; message: string };

const port = parentPort;
if (port === null) throw new Error('origin-worker.ts runs as a worker thread (origin-thread.ts)');
const origin = await startSiteOrigin((workerData as { objects: BenchObject[] }).objects);
const shapers = new Map<number, Shaper>();
const send = (message: FromOriginThread): void => port.postMessage(message);
port.on('message', (message: ToOriginThread) => {
  void (async () => {
    if (message.kind === 'shaper') {
      try {
        const shaper = await startShaper(message.options, sharedCounts(new Float64Array(message.counts)));
        shapers.set(message.id, shaper);
        send({ kind: 'shaper', id: message.id, url: shaper.url });
      } catch (error) {
        send({ kind: 'failed', id: message.id, message: String(error) });
      }
    } else if (message.kind === 'reshape-shaper') {
      try {
        await shapers.get(message.id)?.reshape?.(message.shape);
        send({ kind: 'closed', id: message.id });
      } catch (error) {
        send({ kind: 'failed', id: message.id, message: String(error) });
      }
    } else if (message.kind === 'close-shaper') {
      await shapers.get(message.id)?.close();
      shapers.delete(message.id);
      send({ kind: 'closed', id: message.id });
    } else {
      for (const shaper of shapers.values()) await shaper.close().catch(() => undefined);
      await origin.close();
      send({ kind: 'closed', id: 0 });
      port.close();
    }
  })();
});
send({ kind: 'ready', url: origin.url });
