// Signing a URL or a cookie for a protected prefix (docs/private-content.md): what `npm run sign` prints and what a
// site's own backend calls (any runtime with WebCrypto: Workers, Node 20+, Deno, browsers). HMAC-SHA-256 (RFC 2104)
// over the canonical message of signed-token.ts.

import { canonicalMessage, type SignedToken, TOKEN_COOKIE, tokenQuery } from './signed-token.ts';

export interface SignOptions {
  /** The key id the edge knows the secret by (SIGNING_KEYS: `kid=secret`). */
  keyId: string;
  /** The secret itself, or a CryptoKey made by hmacKey (imported once, reused). */
  secret: string | CryptoKey;
  /** The path granted: exactly (`/video/ep1.mp4`), or with `prefix` everything under it (`/video/ep1/`). */
  path: string;
  prefix?: boolean;
  /** Unix seconds from which it is refused. */
  expires: number;
  /** Unix seconds before which it is refused; absent = valid at once. */
  notBefore?: number;
  /** The client's address (as CF-Connecting-IP gives it); absent = any client. */
  ip?: string;
  /** The client's ISO 3166-1 alpha-2 country (request.cf.country); absent = anywhere. */
  country?: string;
}

const utf8 = new TextEncoder();

/** A secret as an HMAC-SHA-256 key: import it once and pass it as `secret` (importing costs more than signing). */
export function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** The HMAC-SHA-256 of `message` under `key`: 32 bytes. */
export async function hmac(key: CryptoKey, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8.encode(message)));
}

/** The token's parameters as a query string (no `?`): `tc_path=…&tc_exp=…&tc_kid=…&tc_sig=…`. */
export async function signToken(options: SignOptions): Promise<string> {
  const unsigned = {
    keyId: options.keyId,
    scope: { kind: options.prefix === true ? ('prefix' as const) : ('path' as const), path: options.path },
    expires: options.expires,
    notBefore: options.notBefore,
    ip: options.ip,
    country: options.country?.toUpperCase(),
  };
  const key = typeof options.secret === 'string' ? await hmacKey(options.secret) : options.secret;
  const token: SignedToken = { ...unsigned, signature: await hmac(key, canonicalMessage(unsigned)) };
  return tokenQuery(token);
}

/**
 * `base` (`https://cdn.example`) with `options.path` and the token appended to its query. With `prefix`, the URL names
 * the folder itself: a client adds the same token to any path under it (or sends it as the cookie, signedCookie).
 */
export async function signedUrl(base: string, options: SignOptions): Promise<string> {
  const url = new URL(options.path, base);
  const token = await signToken(options);
  return `${url.origin}${url.pathname}${url.search === '' ? '?' : `${url.search}&`}${token}`;
}

/**
 * The Set-Cookie value a backend sends with a prefix token (a player then fetches every segment with it): scoped to the
 * folder, gone when the token expires, never read by scripts.
 */
export async function signedCookie(options: SignOptions, now: number): Promise<string> {
  const token = await signToken(options);
  const path = options.prefix === true ? options.path : '/';
  const maxAge = Math.max(0, options.expires - now);
  return `${TOKEN_COOKIE}=${token}; Path=${path}; Max-Age=${maxAge}; Secure; HttpOnly; SameSite=Lax`;
}
