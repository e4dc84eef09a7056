// Checking a signed token (docs/private-content.md): its key, its signature (HMAC-SHA-256, compared in constant time),
// then what it binds (time, path, client address, country). A signature once checked is remembered per isolate, so a
// player's hundredth segment with the same token costs no HMAC; what it binds is checked on every request.

import { constantTimeEqual } from './credential.ts';
import { grants, type PathReadings, type ProtectedPaths } from './protected-paths.ts';
import { canonicalMessage, type SignedToken } from './signed-token.ts';
import { hmac } from './signer.ts';

/** Why a request for a protected path is refused (SignatureRefused's reason, in its body and Cache-Status). */
export type RefusalReason =
  | 'missing'
  | 'malformed'
  | 'unknown-key'
  | 'tampered'
  | 'expired'
  | 'not-yet-valid'
  | 'wrong-path'
  | 'wrong-prefix'
  | 'wrong-ip'
  | 'wrong-country';

/** What a request is, as far as a token can bind it. */
export interface RequestFacts {
  /** The canonical path, as forwarded (protected-paths.ts judges its other readings). */
  path: string;
  /** CF-Connecting-IP; undefined when the platform gave none. */
  ip: string | undefined;
  /** request.cf.country; undefined when the platform gave none. */
  country: string | undefined;
  /** Unix seconds. */
  now: number;
}

/**
 * Signatures remembered per isolate: a bound on what clients can make it hold (each entry is a message of a few
 * hundred bytes). A thousand tokens in use at once in one isolate is a busy video site's players; past it the oldest
 * is forgotten and costs one HMAC again.
 */
const REMEMBERED_SIGNATURES = 1_000;

const utf8 = new TextEncoder();

export class SignatureVerifier {
  readonly #secrets: ReadonlyMap<string, string>;
  readonly #paths: ProtectedPaths;
  /** Each key imported once per isolate (importing costs more than signing). */
  readonly #keys = new Map<string, Promise<CryptoKey>>();
  /** Message and signature → the scope's canonical path in its readings, for signatures already found genuine. */
  readonly #genuine = new Map<string, PathReadings | undefined>();
  /** Each token's memo key, made once per token read (the edge reuses a token read from the same URL). */
  readonly #memoKeys = new WeakMap<SignedToken, { message: string; memoKey: string }>();

  constructor(secrets: ReadonlyMap<string, string>, paths: ProtectedPaths) {
    this.#secrets = secrets;
    this.#paths = paths;
  }

  /**
   * Why `token` does not admit the request, or undefined when it does. A promise only when the signature has not been
   * checked in this isolate before: a remembered token costs no turn of the event loop.
   */
  verify(token: SignedToken, facts: RequestFacts): RefusalReason | undefined | Promise<RefusalReason | undefined> {
    const secret = this.#secrets.get(token.keyId);
    // A key removed from SIGNING_KEYS is unknown at once: a new configuration is a new verifier, remembering nothing.
    if (secret === undefined) return 'unknown-key';
    let keys = this.#memoKeys.get(token);
    if (keys === undefined) {
      const text = canonicalMessage(token);
      keys = { message: text, memoKey: `${text}\n${token.signature.join(',')}` };
      this.#memoKeys.set(token, keys);
    }
    const { message, memoKey } = keys;
    if (this.#genuine.has(memoKey)) return bindings(token, this.#genuine.get(memoKey), facts);
    return this.#checked(token, secret, message).then((genuine) => {
      if (!genuine) return 'tampered';
      const scopePath = this.#paths.scopePath(token.scope);
      this.#remember(memoKey, scopePath);
      return bindings(token, scopePath, facts);
    });
  }

  async #checked(token: SignedToken, secret: string, message: string): Promise<boolean> {
    let key = this.#keys.get(token.keyId);
    if (key === undefined) {
      key = crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      this.#keys.set(token.keyId, key);
    }
    return constantTimeEqual(await hmac(await key, message), token.signature);
  }

  #remember(memoKey: string, scopePath: PathReadings | undefined): void {
    if (this.#genuine.size >= REMEMBERED_SIGNATURES) {
      const oldest = this.#genuine.keys().next();
      if (oldest.done !== true) this.#genuine.delete(oldest.value);
    }
    this.#genuine.set(memoKey, scopePath);
  }
}

/**
 * What a genuine token binds, checked against the request. Time is judged without skew: the signer chose the expiry
 * on its own clock, and the tiers' clocks are the platform's (NTP-synchronised).
 */
function bindings(
  token: SignedToken,
  scopePath: PathReadings | undefined,
  facts: RequestFacts,
): RefusalReason | undefined {
  if (facts.now >= token.expires) return 'expired';
  if (token.notBefore !== undefined && facts.now < token.notBefore) return 'not-yet-valid';
  if (scopePath === undefined || !grants(token.scope, scopePath, facts.path))
    return token.scope.kind === 'prefix' ? 'wrong-prefix' : 'wrong-path';
  if (token.ip !== undefined && token.ip.toLowerCase() !== facts.ip?.toLowerCase()) return 'wrong-ip';
  if (token.country !== undefined && token.country !== facts.country?.toUpperCase()) return 'wrong-country';
  return undefined;
}
