// SHIELD_URL: where the edge reaches a shield that runs on a hostname of its own (the 'cache-api' shield mode,
// docs/deploying.md "Two shield cache modes"), read into `Config.shieldUrl`; unset, the edge uses its SHIELD binding.

import { ConfigError } from '../http/errors.ts';
import { isCredentialSafe, nonEmpty } from './config-values.ts';

const SHAPE = "SHIELD_URL must be the shield's origin alone, like https://shield.example.com";

/**
 * The shield's origin, or undefined when unset. The edge sends its credential (SHIELD_TOKEN) there on every request:
 * https only (plain http on loopback alone, the local stack's), and nothing but an origin, so that a request's path is
 * never read against a base of the operator's. The value is never echoed: a URL may carry a credential.
 */
export function parseShieldUrl(value: string | undefined): URL | undefined {
  const given = nonEmpty(value);
  if (given === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ConfigError(`${SHAPE}, got something that is not an absolute URL`);
  }
  if (!isCredentialSafe(url))
    throw new ConfigError(
      `SHIELD_URL must use https (http only on loopback): the edge sends its credential there, got ${url.protocol}`,
    );
  if (url.username !== '' || url.password !== '') throw new ConfigError(`${SHAPE}, got a user name or password`);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || given.includes('#') || given.includes('?'))
    throw new ConfigError(`${SHAPE}, got a path, query or fragment`);
  return new URL(url.origin);
}
