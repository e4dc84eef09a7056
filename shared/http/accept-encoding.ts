// Accept-Encoding (RFC 9110 §12.5.3) read for the codings stored answers are keyed by (vary-codings.ts): what a
// request accepts of br, zstd, gzip and identity, and at what weight; and which of them an answer is in.

/** The codings a stored answer is keyed by; this order breaks a tie between equal weights (smallest first). */
export const KEYED_CODINGS = ['br', 'zstd', 'gzip', 'identity'] as const;
export type KeyedCoding = (typeof KEYED_CODINGS)[number];
export type Compression = Exclude<KeyedCoding, 'identity'>;
export const COMPRESSIONS: readonly Compression[] = ['br', 'zstd', 'gzip'];

/** A request's weight for each keyed coding, from 0 (not acceptable) to 1. */
export type Weights = Readonly<Record<KeyedCoding, number>>;

/**
 * Identity's weight when the request states none for it (nor `*`): acceptable (§12.5.3 "unless specifically
 * excluded"), and below any weight a client can state (the least is 0.001, §12.4.2), so a coding the client names
 * is preferred to it.
 */
export const UNSTATED_IDENTITY = 0.0005;

/** §12.4.2: `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, after `OWS ";" OWS "q="`. */
const MEMBER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]*;[ \t]*[qQ]=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?))?$/;

/**
 * What a request's Accept-Encoding accepts of the keyed codings; undefined when the value does not parse
 * (a parameter other than q, a bad weight, a member named twice): such a request is keyed by its exact value, as any
 * field is (vary.ts), never by a reading of it.
 */
export function acceptedCodings(value: string | null): Weights | undefined {
  // §12.5.3 makes any coding acceptable without the field; we take it as identity alone, as caches do: a client
  // that sends none (curl, a script) seldom decodes, and identity is what an origin sends it.
  if (value === null) return { br: 0, zstd: 0, gzip: 0, identity: 1 };
  const stated = new Map<string, number>();
  for (const raw of value.split(',')) {
    const member = raw.trim();
    // §5.6.1: empty list members are ignored; an empty field value means "no content coding" (identity).
    if (member === '') continue;
    const match = MEMBER.exec(member);
    if (match === null) return undefined;
    const name = canonical(match[1] ?? '');
    if (stated.has(name)) return undefined;
    stated.set(name, match[2] === undefined ? 1 : Number(match[2]));
  }
  const star = stated.get('*');
  // §12.5.3: "*" matches any coding not listed; identity is acceptable unless "identity;q=0", or "*;q=0" without a
  // more specific entry for it.
  const weight = (coding: KeyedCoding): number =>
    stated.get(coding) ?? star ?? (coding === 'identity' ? UNSTATED_IDENTITY : 0);
  return { br: weight('br'), zstd: weight('zstd'), gzip: weight('gzip'), identity: weight('identity') };
}

/** The compressions `weights` accepts (q>0). */
export function acceptedCompressions(weights: Weights): Compression[] {
  return COMPRESSIONS.filter((coding) => weights[coding] > 0);
}

/**
 * The keyed coding an answer is in, from its Content-Encoding (§8.4): none is identity; a coding we do not key by,
 * or several applied in turn (`gzip, br`), is undefined: such an answer is keyed by the request's exact value.
 */
export function answerCoding(contentEncoding: string | null): KeyedCoding | undefined {
  if (contentEncoding === null) return 'identity';
  const name = canonical(contentEncoding.trim());
  return KEYED_CODINGS.find((coding) => coding === name);
}

/** Codings are case-insensitive (§8.4.1); §8.4.1.3: "A recipient SHOULD consider "x-gzip" to be equivalent to "gzip"". */
function canonical(name: string): string {
  const lower = name.toLowerCase();
  return lower === 'x-gzip' ? 'gzip' : lower;
}
