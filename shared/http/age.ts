// The age a response already has when a tier receives it (RFC 9111 §4.2.3), from its Date and
// Age fields and the time the request took. Pure: headers and times in, seconds out.

import { parseHttpDate } from './http-date.ts';

/**
 * RFC 9111 §4.2.3: the age a response already had when it reached us, corrected for the
 * time the request took. `requestTime` and `responseTime` are ms epochs on our clock.
 */
export function correctedInitialAge(headers: Headers, requestTime: number, responseTime: number): number {
  const date = parseHttpDate(headers.get('date'), responseTime);
  // "apparent_age = max(0, response_time - date_value)": a Date ahead of our clock counts as no age.
  const apparentAge = date === undefined ? 0 : Math.max(0, (responseTime - date) / 1000);
  const responseDelay = Math.max(0, (responseTime - requestTime) / 1000);
  const correctedAgeValue = ageValue(headers.get('age')) + responseDelay;
  const age = Math.max(apparentAge, correctedAgeValue);
  return Number.isFinite(age) ? age : 0;
}

/**
 * RFC 9111 §5.1: Age is delta-seconds. "a cache encountering a message with a list-based Age
 * field value SHOULD use the first member of the field value, discarding subsequent ones";
 * "If the field value (after discarding additional members, as per above) is invalid (e.g., it
 * contains something other than a non-negative integer), a cache SHOULD ignore the field".
 * Past 2^31 it is clamped (§1.2.2).
 */
function ageValue(value: string | null): number {
  const first = value?.split(',', 1)[0]?.trim() ?? '';
  return /^\d+$/.test(first) ? Math.min(Number(first), 2_147_483_648) : 0;
}
