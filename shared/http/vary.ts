// Vary as a secondary cache key (RFC 9111 §4.1), the same at both tiers: a variant under a key of its own
// per combination of the request's selecting values, found through an index entry at the object's key.

import { splitList } from './header-list.ts';

/**
 * On an index entry: the fields the object varies on, lowercase, comma-separated. The index sits at
 * the object's key; a lookup that meets it reads the variant its own request selects. Several
 * variants of a URL live side by side; a purge or invalidation of the URL removes the index, and
 * with it the way to every variant.
 */
export const VARY_INDEX_HEADER = 'x-tiercache-vary';

/** Longest selecting material written into a key; a request with more is answered, not stored. */
const MAX_MATERIAL = 2048;

/**
 * The field names of a Vary value (RFC 9110 §12.5.5), lowercase, each once; `*` kept as is: it never
 * matches (RFC 9111 §4.1), and a response with it is never stored (freshness.ts).
 */
export function varyFieldNames(value: string | null): string[] {
  if (value === null) return [];
  return [...new Set(splitList(value).map((field) => field.toLowerCase()))];
}

/**
 * The key of the variant `request` selects among those of `objectKey` varying on `fields`;
 * undefined when the values are too long to key by (the response is then not stored).
 * §4.1: a field absent from the request matches only its absence (empty is not absent), and
 * values are compared after combining their field lines and normalising list whitespace. The
 * values are written into the key as they are (normalised, never hashed): two requests share a
 * variant only when their values are the same, so no crafted value can land in another request's
 * variant.
 */
export function variantKey(objectKey: string, fields: readonly string[], request: Headers): string | undefined {
  const material = [...fields]
    .sort()
    .map((field) => {
      const value = request.get(field);
      return value === null ? `${field}!` : `${field}=${normalised(value)}`;
    })
    .join('\n');
  if (material.length > MAX_MATERIAL) return undefined;
  return `https://vary.tiercache.internal/${encodeURIComponent(objectKey)}/${encodeURIComponent(material)}`;
}

/** Whether a stored entry is an object's Vary index; its fields if so. */
export function indexedFields(headers: Headers): string[] | undefined {
  const fields = headers.get(VARY_INDEX_HEADER);
  return fields === null ? undefined : varyFieldNames(fields);
}

/** An index entry's headers, naming `fields`. */
export function indexHeaders(fields: readonly string[]): Headers {
  return new Headers({ [VARY_INDEX_HEADER]: fields.join(', '), 'content-length': '0' });
}

/**
 * §4.1 "normalizing both header field values in a way that is known to have identical semantics":
 * list whitespace only. Not splitList: empty members and quoted commas stay as sent, so two
 * values that differ in anything but whitespace never share a key.
 */
function normalised(value: string): string {
  return value
    .split(',')
    .map((member) => member.trim())
    .join(',');
}
