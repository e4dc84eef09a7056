// What the tiers' endpoints take from an Authorization field (RFC 9110 §11.6.2): a bearer token (RFC 6750 §2.1) or
// Basic's password (RFC 7617 §2, a browser's login box), null when absent; and credentials compared in constant time,
// as strings (a token) or as bytes (a signature).

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

/** Compares in time independent of where the strings differ, so the token cannot be guessed byte by byte. */
export function credentialMatches(presented: string | null, expected: string | undefined): boolean {
  if (presented === null || expected === undefined || expected.length === 0) return false;
  let difference = presented.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    difference |= (presented.charCodeAt(i % Math.max(1, presented.length)) || 0) ^ expected.charCodeAt(i);
  }
  return difference === 0;
}

/**
 * Whether two byte strings are equal, reading every byte of both whatever the first difference (a signature compared
 * byte by byte with an early exit tells an attacker how many leading bytes are right). Lengths are public (a
 * signature's is fixed), so unequal lengths still walk the longer one and then answer false.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  const length = Math.max(a.length, b.length);
  let difference = a.length ^ b.length;
  for (let i = 0; i < length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}
