// The credentials of an Authorization field (RFC 9110 §11.6.2) the tiers' endpoints take: a
// bearer token (RFC 6750 §2.1) or the password of Basic credentials (RFC 7617 §2), which is
// what a browser's login box sends. Undefined parts are null: the caller compares in constant
// time (shared/request/internal.ts credentialMatches) and answers 401 either way.

/** The token of `Bearer <token>`; null for anything else. */
export function bearerToken(authorization: string | null): string | null {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? null;
}

/** The password of `Basic base64(user:password)`, any user; null for anything else. */
export function basicPassword(authorization: string | null): string | null {
  const encoded = /^Basic[ ]+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (encoded === undefined) return null;
  let decoded: string;
  try {
    decoded = atob(encoded);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}
