// Byte ranges (RFC 9110 §14): what a client's Range field asks of a representation of known size,
// whether its If-Range lets it ask, and the Content-Range values that answer it.

import { isStrongEtag } from './etag.ts';
import { parseHttpDate } from './http-date.ts';

/** A run of bytes of a representation, both ends inclusive, as Content-Range writes them. */
export interface ByteRange {
  start: number; // inclusive
  end: number; // inclusive
}

/** More ranges than this, after coalescing, and the Range field is ignored (§14.2, §17.15). */
export const MAX_RANGES = 16;

/**
 * What to do with a request's Range field:
 * - `none`: serve the whole representation with 200, as if no Range had been sent;
 * - `ranges`: serve these with 206; sorted, disjoint, non-adjacent, each within [0, size-1];
 * - `unsatisfiable`: answer 416 with `Content-Range: bytes *\/size` (unsatisfiedRange).
 */
export type RangeVerdict = { kind: 'none' } | { kind: 'ranges'; ranges: ByteRange[] } | { kind: 'unsatisfiable' };

/** A parsed Content-Range response field: a slice of a known whole, or a 416's bare size. */
export type ContentRange = { start: number; end: number; size: number } | { unsatisfied: true; size: number };

/** One bytes range-spec as written (§14.1.2): `first-last`, `first-`, or `-suffix`. */
type RangeSpec = { first: number; last: number | undefined } | { suffix: number };

const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
/** 1*DIGIT, at most 15 of them so that every value is exact as a number (< 2^53). */
const POS = '(\\d{1,15})';
/** ranges-specifier = range-unit "=" range-set (§14.1.1), with OWS tolerated around "=". */
const RANGES_SPECIFIER = new RegExp(`^(${TOKEN})[ \\t]*=([^]*)$`);
const INT_RANGE = new RegExp(`^${POS}-${POS}?$`);
const SUFFIX_RANGE = new RegExp(`^-${POS}$`);
/** Content-Range = range-unit SP ( range-resp / unsatisfied-range ) (§14.4); "*" lengths refused. */
const CONTENT_RANGE = new RegExp(`^bytes (?:${POS}-${POS}|\\*)/${POS}$`, 'i');

/** The verdict on a Range field for a representation of `size` bytes. */
export function evaluateRange(header: string | null, size: number): RangeVerdict {
  if (header === null || !Number.isSafeInteger(size) || size < 0) return { kind: 'none' };
  const specs = parseRangesSpecifier(trimOws(header));
  // §14.2: "A server that supports range requests MAY ignore or reject a Range header field that
  // contains an invalid ranges-specifier"; and "An origin server MUST ignore a Range header field
  // that contains a range unit it does not understand." We ignore both, and serve 200.
  if (specs === undefined) return { kind: 'none' };
  if (size === 0) {
    // §14.1.2: "When a selected representation has zero length, the only satisfiable form of
    // range-spec in a GET request is a suffix-range with a non-zero suffix-length." No
    // Content-Range can describe the nothing it selects, so take §14.2's "MAY ignore a Range
    // header field when the selected representation has no content" and serve the empty 200.
    return specs.some((spec) => 'suffix' in spec && spec.suffix > 0) ? { kind: 'none' } : { kind: 'unsatisfiable' };
  }
  // §15.3.7.2: "a server MAY coalesce any of the ranges that overlap ... regardless of the order
  // in which the corresponding range-spec appeared". We also sort the survivors (against that
  // section's SHOULD on part order) so that a body is always one forward pass over the bytes.
  const ranges = coalesce(specs.flatMap((spec) => selected(spec, size) ?? []));
  // §14.1.1 / §15.5.17: a 416 when "none of the requested ranges are satisfiable".
  if (ranges.length === 0) return { kind: 'unsatisfiable' };
  // §14.2: a server "MAY ignore or reject ... a set of many small ranges", indications of "a
  // deliberate denial-of-service attack (Section 17.15)".
  if (ranges.length > MAX_RANGES) return { kind: 'none' };
  return { kind: 'ranges', ranges };
}

/**
 * Whether If-Range lets the Range field be honoured (§13.1.5). False means: ignore Range and
 * send the whole representation with 200.
 */
export function ifRangeAllows(
  ifRange: string | null,
  validators: { etag: string | null; lastModified: string | null },
): boolean {
  if (ifRange === null) return true;
  const value = trimOws(ifRange);
  // If-Range = entity-tag / HTTP-date; an entity-tag opens with DQUOTE or "W/", a date never does.
  if (value.startsWith('"') || value.startsWith('W/')) {
    // §13.1.5: "If the entity-tag validator provided exactly matches the ETag field value for the
    // selected representation using the strong comparison function (Section 8.8.3.2), the
    // condition is true." §8.8.3.2: strong comparison needs both tags "not weak".
    return validators.etag !== null && isStrongEtag(value) && value === trimOws(validators.etag);
  }
  // §13.1.5: "If the HTTP-date validator provided exactly matches the Last-Modified field value
  // for the selected representation, the condition is true. Otherwise, the condition is false."
  const date = parseHttpDate(value);
  return date !== undefined && date === parseHttpDate(validators.lastModified);
}

/** The Content-Range of a 206 part (§14.4): `bytes 0-499/1234`. */
export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/** The Content-Range of a 416 (§15.5.17): `bytes *\/1234`. */
export function unsatisfiedRange(size: number): string {
  return `bytes */${size}`;
}

/**
 * A Content-Range field read strictly, to check the slices a tier receives; undefined for
 * anything malformed and for an unknown complete length ("*"), which we cannot check against.
 */
export function parseContentRange(value: string | null): ContentRange | undefined {
  if (value === null) return undefined;
  const match = CONTENT_RANGE.exec(trimOws(value));
  if (!match) return undefined;
  const size = Number(match[3]);
  if (match[1] === undefined || match[2] === undefined) return { unsatisfied: true, size };
  const start = Number(match[1]);
  const end = Number(match[2]);
  // §14.4: "A Content-Range field value is invalid if it contains a range-resp that has a
  // last-pos value less than its first-pos value, or a complete-length value less than or equal
  // to its last-pos value."
  if (end < start || size <= end) return undefined;
  return { start, end, size };
}

/** How many bytes a range covers. */
export function rangeLength(range: ByteRange): number {
  return range.end - range.start + 1;
}

/** The range-specs of a bytes ranges-specifier, or undefined if it is invalid or not bytes. */
function parseRangesSpecifier(value: string): RangeSpec[] | undefined {
  const match = RANGES_SPECIFIER.exec(value);
  // §14.1: "Range unit names are case-insensitive"; bytes is the only one we understand.
  if (match?.[1]?.toLowerCase() !== 'bytes') return undefined;
  const specs: RangeSpec[] = [];
  for (const element of (match[2] ?? '').split(',')) {
    const text = trimOws(element);
    // §5.6.1.2: "A recipient MUST parse and ignore a reasonable number of empty list elements".
    if (text === '') continue;
    const spec = parseRangeSpec(text);
    // §14.1.2: "Byte ranges do not use the other-range specifier"; one bad spec spoils the field.
    if (spec === undefined) return undefined;
    specs.push(spec);
  }
  // range-set = 1#range-spec: at least one.
  return specs.length > 0 ? specs : undefined;
}

function parseRangeSpec(text: string): RangeSpec | undefined {
  const suffix = SUFFIX_RANGE.exec(text);
  if (suffix) return { suffix: Number(suffix[1]) };
  const int = INT_RANGE.exec(text);
  if (!int) return undefined;
  const first = Number(int[1]);
  const last = int[2] === undefined ? undefined : Number(int[2]);
  // §14.1.1: "An int-range is invalid if the last-pos value is present and less than the first-pos."
  if (last !== undefined && last < first) return undefined;
  return { first, last };
}

/** The bytes a range-spec selects from a non-empty representation, or undefined if none. */
function selected(spec: RangeSpec, size: number): ByteRange | undefined {
  if ('suffix' in spec) {
    // §14.1.2: satisfiable if "a suffix-range with a non-zero suffix-length"; "If the selected
    // representation is shorter than the specified suffix-length, the entire representation is used."
    return spec.suffix > 0 ? { start: Math.max(0, size - spec.suffix), end: size - 1 } : undefined;
  }
  // §14.1.2: satisfiable if "an int-range with a first-pos that is less than the current length".
  if (spec.first >= size) return undefined;
  // §14.1.2: "If the last-pos value is absent, or if the value is greater than or equal to the
  // current length of the representation data, the byte range is interpreted as the remainder".
  return { start: spec.first, end: Math.min(spec.last ?? size - 1, size - 1) };
}

/** Sorted, with overlapping or adjacent ranges merged into one. */
function coalesce(ranges: ByteRange[]): ByteRange[] {
  const merged: ByteRange[] = [];
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last !== undefined && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

/** OWS = *( SP / HTAB ) (§5.6.3); String.prototype.trim would also eat other whitespace. */
function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}
