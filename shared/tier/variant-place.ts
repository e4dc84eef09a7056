// Where a fill stores an answer that varies (RFC 9111 §4.1): under the variant's key (vary.ts), the object's
// Vary index beside it naming the fields and, varying on Accept-Encoding, the codings stored (vary-codings.ts).

import {
  indexedCodings,
  indexedFields,
  indexHeaders,
  type VariantPlace,
  variantPlace,
  varyFieldNames,
} from '../http/vary.ts';
import { NONE_STORED, type StoredCodings, withStored } from '../http/vary-codings.ts';
import type { EntryMeta } from '../store/stored-entry.ts';
import { emptyBody } from '../streams/empty-body.ts';
import type { ObjectRead } from './ports.ts';
import { lookup, type StoredEntry, store } from './tier-cache.ts';

/**
 * Where a response about to be stored goes (RFC 9111 §4.1, vary.ts): when it varies and the
 * tier keys by the request (`selecting`), under its variant's key (by its coding, varying on
 * Accept-Encoding: vary-codings.ts), with the object's index naming the fields and the codings
 * stored (the returned promise stores it); otherwise under the object's own key. Undefined when
 * the request's selecting values are too long to key by: nothing is stored.
 */
export function placeVariant(
  read: ObjectRead,
  status: number,
  headers: Headers,
  meta: EntryMeta,
  keep: number,
): Promise<unknown> | undefined {
  if (read.selecting === undefined) return Promise.resolve();
  const objectKey = read.objectKey ?? read.key;
  const fields = varyFieldNames(headers.get('vary'));
  if (fields.length === 0) {
    read.key = objectKey;
    return Promise.resolve();
  }
  const place = variantPlace(objectKey, fields, read.selecting, status, headers);
  if (place === undefined) return undefined;
  read.objectKey = objectKey;
  read.key = place.key;
  return storeIndex(read, objectKey, fields, place, meta, keep);
}

/**
 * The object's Vary index, naming `fields`; with the coding `place` records added to those the index held
 * (read again now, so that two fills of different codings seldom drop each other's; one dropped costs a miss).
 */
async function storeIndex(
  read: ObjectRead,
  objectKey: string,
  fields: readonly string[],
  place: VariantPlace,
  meta: EntryMeta,
  keep: number,
): Promise<unknown> {
  let codings: StoredCodings | undefined;
  if (place.coding !== undefined) {
    const held = await lookup(read.cache, objectKey).catch(() => undefined);
    await held?.body?.cancel();
    codings = withStored(heldCodings(read, held, fields), place.coding.coding, place.coding.weights);
  }
  const headers = indexHeaders(fields, codings);
  const stored = store(read.cache, objectKey, {
    status: 200,
    headers,
    body: emptyBody(),
    meta,
    retention: keep,
    length: 0,
  });
  read.waitUntil(stored);
  return stored;
}

/** The codings the held index records: only an index of the same fields (another's variants have other keys), not purged. */
function heldCodings(read: ObjectRead, held: StoredEntry | undefined, fields: readonly string[]): StoredCodings {
  const heldFields = held === undefined ? undefined : indexedFields(held.headers);
  if (held === undefined || heldFields === undefined || read.purged?.(held) === true) return NONE_STORED;
  return [...heldFields].sort().join() === [...fields].sort().join() ? indexedCodings(held.headers) : NONE_STORED;
}
