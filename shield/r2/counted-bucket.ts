// The R2 tier's bucket with every operation R2 answered counted in the isolate's tally (shared/observe/r2-tally.ts),
// so the stats page prices exactly what the tier did to it (docs/costs.md): each get and head (Class B), each put R2
// took, its bytes and the storage its retention commits to, each list (Class A); a delete is free and not counted. A
// call R2 refused is not counted: R2 bills what it did.

import type { R2Tally } from '../../shared/observe/r2-tally.ts';
import { keptOf, type R2Store } from './r2-cache.ts';

/**
 * `bucket`, its operations counted in `tally`; `now` is the tier's clock (ms epoch: an entry's expiry is on it), and
 * `told` hears of each operation that may end after the request that made it was recorded (a put, a list, a head:
 * the tier's fills, its walk, a removal), so that the counts are flushed without waiting for another record.
 */
export function countedBucket(bucket: R2Store, tally: R2Tally, now: () => number, told: () => void): R2Store {
  return {
    async get(key) {
      // A lookup: the request that asked for it is recorded after its answer, and its counts go with that record.
      const object = await bucket.get(key);
      tally.read();
      return object;
    },
    async head(key) {
      const listed = await bucket.head(key);
      tally.read();
      told();
      return listed;
    },
    async put(key, value, options) {
      const stored = await bucket.put(key, value, options);
      // The entry's counted length, which is what R2 took (r2-cache.ts streams exactly that many bytes, or nothing).
      const kept = keptOf(options.customMetadata);
      const bytes = kept?.bytes ?? (value instanceof Uint8Array ? value.byteLength : 0);
      tally.put(bytes, kept === undefined ? 0 : (kept.expires - now()) / 1000);
      told();
      return stored;
    },
    delete: (keys) => bucket.delete(keys),
    async list(options) {
      const page = await bucket.list(options);
      tally.listed();
      told();
      return page;
    },
  };
}
