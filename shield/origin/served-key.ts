// The object this isolate last had from the origin, which the health probe asks for when no HEALTH_KEY is set (one that
// exists answers 200 only to an access that may read it); module state, one per isolate, as the probe's finding is.

import type { Config } from '../../shared/config/config.ts';
import type { RequestTarget } from '../../shared/request/request-target.ts';

/** An object the origin served: its bucket (S3; each host may read its own) and its target, without a query. */
export interface ServedObject {
  bucket: string | undefined;
  target: RequestTarget;
}

let last: ServedObject | undefined;

/** Notes that the origin answered `status` for `target`; only an answer with the object (2xx, 304) counts. */
export function noteServed(config: Config, target: RequestTarget, status: number): void {
  if (!((status >= 200 && status < 300) || status === 304)) return;
  last = { bucket: config.s3?.bucket, target: { path: target.path, query: '', key: target.key } };
}

export function lastServed(): ServedObject | undefined {
  return last;
}
