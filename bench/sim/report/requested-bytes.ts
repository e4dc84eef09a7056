// The ideal a cache is measured against: the distinct bytes the clients asked for, each object's version counted on
// its own (a purge makes its new version a new object). A request asks for its Range (RFC 9110 §14.1.2), or the whole
// object without one; a HEAD asks for no bytes; a request cut by its client still asked for what its Range said,
// which a cache may rightly fill. origin bytes ÷ this is 1.00 for a system that fetched every asked byte once.

import { type ByteInterval, coverage } from '../../report/byte-intervals.ts';
import { singleRange } from '../workload/byte-range.ts';

export interface AskedRequest {
  method: 'GET' | 'HEAD';
  path: string;
  range?: string;
  /** The origin's version of the path when it was asked. */
  versionAtSend: number;
}

export function uniqueRequestedBytes(requests: readonly AskedRequest[], sizes: ReadonlyMap<string, number>): number {
  const asked = new Map<string, ByteInterval[]>();
  for (const request of requests) {
    if (request.method === 'HEAD') continue;
    const size = sizes.get(request.path) ?? 0;
    const range = singleRange(request.range, size);
    if (range === 'unsatisfiable') continue;
    const interval = range === undefined ? { start: 0, end: size } : { start: range.start, end: range.end + 1 };
    const key = `${request.versionAtSend} ${request.path}`;
    const list = asked.get(key) ?? [];
    list.push(interval);
    asked.set(key, list);
  }
  let total = 0;
  for (const intervals of asked.values()) total += coverage(intervals).distinctBytes;
  return total;
}
