// Vary: Accept-Encoding without a variant per spelling: which stored coding a request is served, and the record of
// the codings stored that the object's Vary index keeps (vary.ts); the rule is docs/caching.md's.

import {
  acceptedCompressions,
  COMPRESSIONS,
  type Compression,
  KEYED_CODINGS,
  type KeyedCoding,
  type Weights,
} from './accept-encoding.ts';

/**
 * On a Vary index entry (vary.ts) of an object varying on Accept-Encoding: the codings stored, e.g.
 * `br, gzip, identity=gzip`; `identity=<compressions>` names those offered to the origin when it answered with
 * identity all the same (`identity=` none).
 */
export const VARY_CODINGS_HEADER = 'x-tiercache-vary-codings';

export interface StoredCodings {
  compressions: ReadonlySet<Compression>;
  /**
   * Undefined: no identity answer is stored. Otherwise the compressions requests had offered when the origin
   * answered them with identity: the identity answer is served to a client accepting compressions among these
   * only (the identity trap: one stored for a client without compression, served to a gzip client, would keep it
   * from the gzip the origin would have sent).
   */
  identityOffered?: ReadonlySet<Compression> | undefined;
}

export const NONE_STORED: StoredCodings = { compressions: new Set() };

/** An index's record; what does not read is taken as not stored (a miss, which stores it again). */
export function readStoredCodings(value: string | null): StoredCodings {
  const compressions = new Set<Compression>();
  let identityOffered: Set<Compression> | undefined;
  for (const member of (value ?? '').split(',').map((part) => part.trim())) {
    const compression = COMPRESSIONS.find((coding) => coding === member);
    if (compression !== undefined) compressions.add(compression);
    const offered = /^identity=([a-z+]*)$/.exec(member)?.[1];
    if (offered === undefined) continue;
    const names = offered === '' ? [] : offered.split('+');
    const known = COMPRESSIONS.filter((coding) => names.includes(coding));
    // A name we do not know means a record we cannot read: identity is then not known to be stored.
    if (known.length === names.length) identityOffered = new Set(known);
  }
  return { compressions, identityOffered };
}

export function formatStoredCodings(stored: StoredCodings): string {
  const members: string[] = COMPRESSIONS.filter((coding) => stored.compressions.has(coding));
  const offered = stored.identityOffered;
  if (offered !== undefined) members.push(`identity=${COMPRESSIONS.filter((c) => offered.has(c)).join('+')}`);
  return members.join(', ');
}

/**
 * `stored` with an answer in `coding` stored too, answering a request that accepted `weights`; the compressions
 * offered with identity only grow: each request answered identity is one more the origin declined to compress.
 */
export function withStored(stored: StoredCodings, coding: KeyedCoding, weights: Weights): StoredCodings {
  if (coding !== 'identity') return { ...stored, compressions: new Set([...stored.compressions, coding]) };
  const offered = new Set([...(stored.identityOffered ?? []), ...acceptedCompressions(weights)]);
  return { ...stored, identityOffered: offered };
}

/**
 * The stored codings a request accepting `weights` may be served, best first: by its weight (q>0 only: a refused
 * coding is never served, RFC 9110 §12.5.3 "not acceptable"), ties broken br, zstd, gzip, identity; identity only
 * when the origin was seen answering identity though offered every compression this request accepts.
 */
export function servedCodings(weights: Weights, stored: StoredCodings): KeyedCoding[] {
  const servable = (coding: KeyedCoding): boolean => {
    if (weights[coding] <= 0) return false;
    if (coding !== 'identity') return stored.compressions.has(coding);
    const offered = stored.identityOffered;
    return offered !== undefined && acceptedCompressions(weights).every((compression) => offered.has(compression));
  };
  return KEYED_CODINGS.filter(servable).sort(
    (a, b) => weights[b] - weights[a] || KEYED_CODINGS.indexOf(a) - KEYED_CODINGS.indexOf(b),
  );
}
