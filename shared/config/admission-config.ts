// The settings of request admission (docs/private-content.md): the keys signed URLs and cookies are checked with, and
// the path prefixes that need one.

import { ConfigError } from '../http/errors.ts';
import type { ConfigProblems } from './config-problems.ts';
import { nonEmpty, type Raw } from './config-values.ts';

export const ADMISSION_CONFIG_NAMES = ['SIGNING_KEYS', 'SIGNED_PREFIXES'] as const;
type AdmissionName = (typeof ADMISSION_CONFIG_NAMES)[number];

export interface AdmissionConfig {
  /** SIGNING_KEYS (a secret): key id → secret, in the order written (the first signs when no id is asked for). */
  signingKeys: ReadonlyMap<string, string>;
  /** SIGNED_PREFIXES: the paths (as written) whose objects need a signature; empty = nothing is signed. */
  signedPrefixes: readonly string[];
}

/** A key id: a token a URL carries unencoded (tc_kid), short enough to say in a log line. */
const KEY_ID = /^[A-Za-z0-9._~-]{1,64}$/;
/**
 * HMAC-SHA-256 takes a key of any length, but one shorter than its 32-byte output is weaker than the signature it makes
 * (RFC 2104 §3: "less than L bytes is strongly discouraged").
 */
const MIN_SECRET_LENGTH = 32;
// A request path never holds a control character, a query or a fragment: such a prefix would protect nothing.
const PREFIX = /^\/[^\u0000-\u0020\u007F?#]*$/;
const MALFORMED_PERCENT = /%(?![0-9A-Fa-f]{2})/;

export function parseAdmission(raw: Raw<AdmissionName>, problems: ConfigProblems): AdmissionConfig {
  const signingKeys = problems.read(() => signingKeysOf(raw.SIGNING_KEYS), new Map<string, string>());
  const signedPrefixes = problems.read(() => prefixesOf(raw.SIGNED_PREFIXES), []);
  if (signedPrefixes.length > 0 && signingKeys.size === 0)
    problems.read(() => {
      throw new ConfigError('SIGNED_PREFIXES needs SIGNING_KEYS (kid=secret,…): no signature could be checked');
    }, undefined);
  return { signingKeys, signedPrefixes };
}

/** `kid=secret,kid2=secret2`; the message names the key id, never the secret. */
function signingKeysOf(value: string | undefined): Map<string, string> {
  const keys = new Map<string, string>();
  for (const entry of (nonEmpty(value) ?? '').split(',')) {
    const pair = entry.trim();
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const kid = equals < 0 ? '' : pair.slice(0, equals).trim();
    const secret = equals < 0 ? '' : pair.slice(equals + 1).trim();
    if (!KEY_ID.test(kid))
      throw new ConfigError('SIGNING_KEYS must be kid=secret pairs, a kid of letters, digits and ._~- (up to 64)');
    if (keys.has(kid)) throw new ConfigError(`SIGNING_KEYS names the key id ${JSON.stringify(kid)} twice`);
    if (secret.length < MIN_SECRET_LENGTH || secret.includes(','))
      throw new ConfigError(
        `SIGNING_KEYS: the secret of ${JSON.stringify(kid)} must be at least ${MIN_SECRET_LENGTH} characters (no commas)`,
      );
    keys.set(kid, secret);
  }
  return keys;
}

function prefixesOf(value: string | undefined): string[] {
  const prefixes: string[] = [];
  for (const entry of (nonEmpty(value) ?? '').split(',')) {
    const prefix = entry.trim();
    if (prefix === '') continue;
    if (!PREFIX.test(prefix) || MALFORMED_PERCENT.test(prefix))
      throw new ConfigError(
        `SIGNED_PREFIXES must be paths starting with "/" (no spaces, query or fragment), got ${JSON.stringify(prefix)}`,
      );
    prefixes.push(prefix);
  }
  return prefixes;
}
