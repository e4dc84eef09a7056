// What the origin's answer to the health probe means (docs/operating.md), pure: a status and S3's code in, a state and
// a sentence naming the setting to check out; never a bucket, key or credential, since the health answer is public.

import { isBusy } from '../../shared/http/busy-origin.ts';
import type { OriginFinding } from '../../shared/http/health-report.ts';
import { AUTH_CODES } from './origin-errors.ts';

/** Which setting an S3 code points at, where one does. */
const CREDENTIAL_HINTS: Readonly<Record<string, string>> = {
  InvalidAccessKeyId: 'check S3_ACCESS_KEY_ID',
  SignatureDoesNotMatch: 'check S3_SECRET_ACCESS_KEY',
  AccessDenied: 'the access may not read the probed key: check its permissions for this bucket (and HEALTH_KEY)',
  AuthorizationHeaderMalformed: 'check S3_REGION',
  RequestTimeTooSkewed: "the shield's clock and the origin's disagree",
  ExpiredToken: 'the access has expired',
  InvalidToken: 'the access has been revoked or is malformed',
};

/**
 * Whether an S3 answer to HEAD needs a GET to say what it means: a HEAD answer has no body
 * (RFC 9110 §9.3.2), so no `<Code>`, and S3 sends 404 both for a missing key (the origin works)
 * and for a missing bucket (it cannot serve anything); a 403's code names the setting to fix.
 */
export function needsErrorCode(status: number): boolean {
  return status >= 300 && status < 500;
}

/** An S3 origin's answer to the probe; `code` is the `<Code>` of its error body, when it sent one. */
export function s3Finding(status: number, code: string | undefined): OriginFinding {
  const said = code === undefined ? `${status}` : `${status} ${code}`;
  if ((status >= 200 && status < 300) || status === 304)
    return {
      origin: 'ok',
      detail: `the probed object answered ${status}: the origin serves with the configured credentials`,
    };
  if (code === 'NoSuchKey')
    return {
      origin: 'ok',
      detail: 'the probed key names no object (404 NoSuchKey): the bucket and the credentials were accepted',
    };
  if (code === 'NoSuchBucket')
    return {
      origin: 'no-such-bucket',
      detail: 'the origin has no such bucket (404 NoSuchBucket): check S3_BUCKET (or HOST_BUCKETS)',
    };
  if ((code !== undefined && AUTH_CODES.has(code)) || status === 403) {
    const hint =
      (code !== undefined ? CREDENTIAL_HINTS[code] : undefined) ??
      'check S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY and S3_REGION';
    return { origin: 'credentials', detail: `the origin refused the credentials (${said}): ${hint}` };
  }
  if (status === 404)
    return {
      origin: 'error',
      detail: 'the origin answered 404 without an error code: no such key or no such bucket, it did not say which',
    };
  if (isBusy(status)) return { origin: 'error', detail: `the origin is busy (${said}): it refuses requests for now` };
  if (status >= 500) return { origin: 'error', detail: `the origin failed (${said})` };
  // A redirect (PermanentRedirect: the bucket lives in another region) or a 400.
  return {
    origin: 'error',
    detail: `the origin refused the request (${said}): check ORIGIN_URL, S3_REGION and S3_ADDRESSING`,
  };
}

/** A site's answer to the probe: any answer but a 5xx means it serves (its 404 page is an answer too). */
export function siteFinding(status: number): OriginFinding {
  if (status >= 200 && status < 500) return { origin: 'ok', detail: `the site answered ${status}` };
  return { origin: 'error', detail: `the site failed (${status})` };
}

/** No answer at all: no connection, or none within `ms`. */
export function unanswered(timedOut: boolean, ms: number): OriginFinding {
  if (timedOut) return { origin: 'timeout', detail: `the origin did not answer within ${ms} ms` };
  return { origin: 'unreachable', detail: 'the origin could not be reached: check ORIGIN_URL' };
}
