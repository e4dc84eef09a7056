// A request to a busy origin (503, 429) asked again as its Retry-After says, within the time the origin has in all
// (shared/http/busy-origin.ts); past that its busy answer is the answer. Which requests may be asked again is each
// origin kind's to say (origin.ts `fetch`).

import { busyWait, isBusy } from '../../shared/http/busy-origin.ts';

/**
 * `once` (a fresh request each time: S3 signs each try) until an answer is not busy, or until `waitMs` (the least of
 * ORIGIN_TIMEOUT_MS and ORIGIN_BUSY_WAIT_MS) would be spent waiting: a longer Retry-After is not sat out in a client's
 * request. `onBusy` is told of each busy answer waited out (ObjectAsk.onBusy).
 */
export async function retryWhileBusy(
  once: () => Promise<Response>,
  waitMs: number,
  onBusy?: (response: Response) => void,
): Promise<Response> {
  const deadline = Date.now() + waitMs;
  for (let retry = 1; ; retry++) {
    const response = await once();
    if (!isBusy(response.status)) return response;
    const wait = busyWait(retry, response.headers.get('retry-after'), Date.now(), deadline);
    if (wait === undefined) return response;
    onBusy?.(response);
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
