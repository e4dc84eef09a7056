// The canonical spelling of a path every tier keys by and every rule matches (RFC 3986 §6.2.2), on its own: the
// request target, the reserved paths and the rules all read it.

/**
 * RFC 3986 §6.2.2 syntax-based normalisation of an already parsed path: percent-encodings of
 * unreserved characters decoded, the remaining ones upper-cased, and a stray `%` encoded as
 * `%25` (else `%4%41` would become `%4A` here and `J` at the next tier: normalising must be
 * idempotent). Dot segments were removed by the URL parser.
 */
export function normalizePath(pathname: string): string {
  return pathname.replace(/%([0-9A-Fa-f]{2})?/g, (_, hex: string | undefined) => {
    if (hex === undefined) return '%25';
    const char = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}
