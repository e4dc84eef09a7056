// What a tier asks of the next hop for a GET, whatever the hop is: the edge asks the shield
// (slice protocol, shield/slice-answer.ts), the shield asks the origin (ranged GETs,
// shield/origin/ranged.ts). Both answer in these terms, so both tiers run one read path.

import type { ObjectMeta } from '../slices/object-meta.ts';
import type { ObjectVersion, SliceSpan } from '../slices/slice-plan.ts';

export type UpstreamAnswer =
  /** The object is not sliced: here it is whole (or the upstream's error response). */
  | { kind: 'whole'; response: Response }
  /** Exactly the bytes of `span` of the object `meta` describes. */
  | { kind: 'span'; meta: ObjectMeta; span: SliceSpan; body: ReadableStream<Uint8Array>; response: Response }
  /** The span starts past the object's end; `meta` says how long the object is. */
  | { kind: 'beyond'; meta: ObjectMeta; response: Response }
  /** The validators sent still match (RFC 9110 §15.4.5): `response` carries the updated headers. */
  | { kind: 'not-modified'; response: Response };

/** What a tier holds, for a conditional request upstream (RFC 9111 §4.3.1). */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** How a span is asked for. */
export interface SliceAsk {
  /** Revalidate what this tier holds (RFC 9111 §4.3.1). */
  validators?: Validators | undefined;
  /** Only the span's bytes from this offset on (the rest of a body that broke, or that a slow client let go of); needs `pinned`. */
  from?: number | undefined;
  /** The client's request: once it aborts (the client went away), so does this fetch, body and all. */
  signal?: AbortSignal | undefined;
}

export interface Upstream {
  /**
   * A span of slices: for discovery (`pinned` undefined: whatever version is current) or of the
   * pinned version, in which case a different version throws VersionChanged.
   */
  slices(span: SliceSpan, pinned: ObjectVersion | undefined, ask?: SliceAsk): Promise<UpstreamAnswer>;
  /** HEAD of the object, for HEAD requests a tier cannot answer itself. */
  head(signal?: AbortSignal): Promise<Response>;
}
