// Reading one setting's value, as it arrives (a string or nothing): byte counts, integers,
// choices, object keys, required and optional strings. Every refusal is a ConfigError naming the setting.

import { ConfigError } from '../http/errors.ts';
import { encodeKeyForPath, objectKeyFromPath } from '../request/object-key.ts';

/** Settings by name, as strings (or absent). */
export type Raw<N extends string> = Partial<Record<N, string>>;

const MIB = 1024 * 1024;

/** A byte count, plain or with a binary suffix: `8388608`, `8MiB`, `8M`, `512KiB`. */
export function byteSize<N extends string>(raw: Raw<N>, name: N, fallback: number): number {
  const value = nonEmpty(raw[name]);
  if (value === undefined) return fallback;
  const match = /^(\d{1,12})\s*(k|kib|m|mib|g|gib)?$/i.exec(value);
  if (!match) throw new ConfigError(`${name} must be a byte count like 8388608 or 8MiB, got ${JSON.stringify(value)}`);
  const unit = (match[2] ?? '').toLowerCase().charAt(0);
  const factor = unit === 'k' ? 1024 : unit === 'm' ? MIB : unit === 'g' ? 1024 * MIB : 1;
  return Number(match[1]) * factor;
}

export function required<N extends string>(raw: Raw<N>, name: N): string {
  const value = nonEmpty(raw[name]);
  if (value === undefined) throw new ConfigError(`${name} is required when ORIGIN_KIND=s3`);
  return value;
}

export function oneOf<N extends string, T extends string>(raw: Raw<N>, name: N, allowed: readonly T[], fallback: T): T {
  const value = nonEmpty(raw[name]);
  if (value === undefined) return fallback;
  const found = allowed.find((option) => option === value);
  if (found === undefined)
    throw new ConfigError(`${name} must be one of ${allowed.join('|')}, got ${JSON.stringify(value)}`);
  return found;
}

/**
 * An integer from `min` (to `max`, when the setting has one). A value beyond the range is
 * refused, never clamped: a setting that silently reads as another number is a surprise found
 * in production; `why` says where the bound comes from.
 */
export function integer<N extends string>(
  raw: Raw<N>,
  name: N,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  why = '',
): number {
  const value = nonEmpty(raw[name]);
  if (value === undefined) return fallback;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}${why ? ` (${why})` : ''}`;
    throw new ConfigError(`${name} must be an integer ${range}, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

/** A decimal number within [min, max]: `0.01`, `7`, `12.5`. */
export function decimal<N extends string>(raw: Raw<N>, name: N, fallback: number, min: number, max: number): number {
  const value = nonEmpty(raw[name]);
  if (value === undefined) return fallback;
  const parsed = /^\d{1,12}(\.\d{1,12})?$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min && parsed <= max))
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return parsed;
}

/**
 * An object key (a leading `/` dropped), checked as a request's key is: one object, never the
 * bucket itself (an empty key or only slashes would be a ListObjects call). Undefined when unset.
 */
export function objectKey<N extends string>(raw: Raw<N>, name: N): string | undefined {
  const value = nonEmpty(raw[name])?.replace(/^\/+/, '');
  if (value === undefined) return undefined;
  const parsed = objectKeyFromPath(`/${encodeKeyForPath(value)}`);
  if (!parsed.ok) throw new ConfigError(`${name} must name one object key: ${parsed.reason}`);
  return parsed.key;
}

/** Host names that never leave this machine: where a URL that carries a credential may be plain http (the local stack). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a credential may be sent to `url`: over https, or plain http to this machine only. */
export function isCredentialSafe(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** The value trimmed; undefined when absent or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
