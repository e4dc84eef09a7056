// The stats store (shield/stats-store.ts) as a tier reaches it: through its STATS binding, by the calls
// shared/stats/store-protocol.ts names; a failure to reach it costs the counts, never the request.

import { batchUrl, bucketsUrl, STATS_OBJECT_NAME, type StatsBatchJson } from '../stats/store-protocol.ts';

/** The part of the STATS Durable Object namespace used here (one object holds every tier's counts). */
export interface StatsStoreNamespace {
  idFromName(name: string): unknown;
  get(id: never): { fetch(url: string, init?: RequestInit): Promise<Response> };
}

/** The store's buckets of the last `minutes` minutes (StatsStore answers them as JSON). */
export async function readStats(store: StatsStoreNamespace, minutes: number): Promise<unknown> {
  const answer = await storeStub(store).fetch(bucketsUrl(minutes));
  if (!answer.ok) throw new Error(`the stats store answered ${answer.status}`);
  return answer.json();
}

/** POSTs a batch; the store refusing it or out of reach loses its rows, said in the log. */
export async function sendBatch(store: StatsStoreNamespace, taken: StatsBatchJson): Promise<void> {
  try {
    const answer = await storeStub(store).fetch(batchUrl(), {
      method: 'POST',
      body: JSON.stringify(taken),
    });
    await answer.body?.cancel();
    if (!answer.ok)
      console.error(`tiercache stats: the store answered ${answer.status}; ${taken.rows.length} rows lost`);
  } catch (error) {
    // Counts are not worth a failed request: say so and go on.
    console.error(
      `tiercache stats: cannot reach the store (${error instanceof Error ? error.message : String(error)}); ${taken.rows.length} rows lost`,
    );
  }
}

function storeStub(store: StatsStoreNamespace): ReturnType<StatsStoreNamespace['get']> {
  return store.get(store.idFromName(STATS_OBJECT_NAME) as never);
}
