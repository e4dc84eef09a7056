// Vary as a secondary cache key (RFC 9111 §4.1), the same at both tiers: a variant under a key of its own
// per combination of the request's selecting values, found through an index entry at the object's key.

import { acceptedCodings, answerCoding, type KeyedCoding, type Weights } from './accept-encoding.ts';
import { splitList } from './header-list.ts';
import {
  formatStoredCodings,
  NONE_STORED,
  readStoredCodings,
  type StoredCodings,
  servedCodings,
  VARY_CODINGS_HEADER,
} from './vary-codings.ts';

/**
 * On an index entry: the fields the object varies on, lowercase, comma-separated. The index sits at
 * the object's key; a lookup that meets it reads the variant its own request selects. Several
 * variants of a URL live side by side; a purge or invalidation of the URL removes the index, and
 * with it the way to every variant.
 */
export const VARY_INDEX_HEADER = 'x-tiercache-vary';

/** Longest selecting material written into a key; a request with more is answered, not stored. */
const MAX_MATERIAL = 2048;
const ACCEPT_ENCODING = 'accept-encoding';
/** RFC 9110 §5.1: a field name is a token; a Vary naming anything else cannot be keyed by. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

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
 * variant. With `coding`, Accept-Encoding is written as that coding instead (`accept-encoding:gzip`,
 * a line no value can write: `:` is in no field name): the variant of the answers in it (vary-codings.ts).
 */
export function variantKey(
  objectKey: string,
  fields: readonly string[],
  request: Headers,
  coding?: KeyedCoding,
): string | undefined {
  if (fields.some((field) => !TOKEN.test(field))) return undefined;
  const material = [...fields]
    .sort()
    .map((field) => {
      if (field === ACCEPT_ENCODING && coding !== undefined) return `${field}:${coding}`;
      const value = request.get(field);
      return value === null ? `${field}!` : `${field}=${normalised(value)}`;
    })
    .join('\n');
  if (material.length > MAX_MATERIAL) return undefined;
  return `https://vary.tiercache.internal/${encodeURIComponent(objectKey)}/${encodeURIComponent(material)}`;
}

/**
 * Where `request` may find its variant, given the object's `index`: `served`, best first, when the object varies on
 * Accept-Encoding and the request's value reads, the stored codings it accepts (vary-codings.ts); then `exact`, its
 * own values' key (where an answer in a coding we do not key by is stored, and a miss is filled), undefined when
 * they are too long to key by.
 */
export function variantLookups(
  objectKey: string,
  fields: readonly string[],
  request: Headers,
  index: Headers,
): { served: string[]; exact: string | undefined } {
  const weights = codingWeights(fields, request);
  const codings = weights === undefined ? [] : servedCodings(weights, indexedCodings(index));
  const served = codings
    .map((coding) => variantKey(objectKey, fields, request, coding))
    .filter((key): key is string => key !== undefined);
  return { served, exact: variantKey(objectKey, fields, request) };
}

/** Where an answer to `request` is stored, and the coding it is recorded under, if any; undefined: not stored. */
export interface VariantPlace {
  key: string;
  coding?: { coding: KeyedCoding; weights: Weights };
}

/**
 * Where the answer (`status`, `headers`) to `request` is stored among the variants of `objectKey`: under its
 * coding when the object varies on Accept-Encoding, the request's value reads and the answer is a 200 in a keyed
 * coding (vary-codings.ts); otherwise (an error, a 204, another coding) under the request's exact values, as every
 * other field.
 */
export function variantPlace(
  objectKey: string,
  fields: readonly string[],
  request: Headers,
  status: number,
  headers: Headers,
): VariantPlace | undefined {
  const weights = codingWeights(fields, request);
  const coding = status === 200 && weights !== undefined ? answerCoding(headers.get('content-encoding')) : undefined;
  if (coding === undefined || weights === undefined) {
    const key = variantKey(objectKey, fields, request);
    return key === undefined ? undefined : { key };
  }
  const key = variantKey(objectKey, fields, request, coding);
  return key === undefined ? undefined : { key, coding: { coding, weights } };
}

/**
 * The request headers that select `representation` (an answer chosen by its coding) again, for a request pinned to
 * its version: Accept-Encoding names its coding alone, so that a negotiating next hop answers that version and not
 * the one it prefers for the client's own value (which another tier may hold). Otherwise `client` as it is.
 */
export function reselecting(client: Headers | undefined, representation: Headers): Headers | undefined {
  if (client === undefined || !varyFieldNames(representation.get('vary')).includes(ACCEPT_ENCODING)) return client;
  const coding = answerCoding(representation.get('content-encoding'));
  const value = client.get(ACCEPT_ENCODING);
  if (coding === undefined || acceptedCodings(value) === undefined) return client;
  // No Accept-Encoding already selects identity alone.
  if (coding === 'identity' && value === null) return client;
  const headers = new Headers(client);
  headers.set(ACCEPT_ENCODING, coding);
  return headers;
}

/** Whether a stored entry is an object's Vary index; its fields if so. */
export function indexedFields(headers: Headers): string[] | undefined {
  const fields = headers.get(VARY_INDEX_HEADER);
  return fields === null ? undefined : varyFieldNames(fields);
}

/** The codings an index records as stored (none when it records none, or is not one). */
export function indexedCodings(headers: Headers): StoredCodings {
  return headers.has(VARY_INDEX_HEADER) ? readStoredCodings(headers.get(VARY_CODINGS_HEADER)) : NONE_STORED;
}

/** An index entry's headers, naming `fields` (and, varying on Accept-Encoding, the codings stored). */
export function indexHeaders(fields: readonly string[], codings: StoredCodings = NONE_STORED): Headers {
  const headers = new Headers({ [VARY_INDEX_HEADER]: fields.join(', '), 'content-length': '0' });
  const recorded = formatStoredCodings(codings);
  if (fields.includes(ACCEPT_ENCODING) && recorded !== '') headers.set(VARY_CODINGS_HEADER, recorded);
  return headers;
}

/** A request's weights, when the object varies on Accept-Encoding and the request's value reads. */
function codingWeights(fields: readonly string[], request: Headers): Weights | undefined {
  return fields.includes(ACCEPT_ENCODING) ? acceptedCodings(request.get(ACCEPT_ENCODING)) : undefined;
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
