// What a client sees when S3 does not deliver the object, or when any origin fails in the middle
// of an object: S3's own error body (XML) is never passed on, only its status and error code,
// which name the cause without echoing anything S3 said about our credentials. Refusals of our
// own request (signature, bucket, endpoint) are ours: a 502 naming the setting to check.

import { BadGateway, Gone, type HttpError, NotFound, OriginAnswered } from '../../shared/http/errors.ts';

/** S3 error codes that mean our request (its signature or credentials) was refused. */
export const AUTH_CODES: ReadonlySet<string> = new Set([
  'SignatureDoesNotMatch',
  'InvalidAccessKeyId',
  'AccessDenied',
  'InvalidToken',
  'ExpiredToken',
  'RequestTimeTooSkewed',
  'AuthorizationHeaderMalformed',
  'InvalidSecurity',
]);

/** The error for an S3 origin's non-success answer; `code` is S3's `<Code>`, when it sent one. */
export function s3Failure(status: number, code: string | undefined): HttpError {
  return s3Error(status, code).from(status);
}

function s3Error(status: number, code: string | undefined): HttpError {
  if (code === 'NoSuchKey' || (status === 404 && code !== 'NoSuchBucket')) return new NotFound('no such object');
  // Ours to fix, not the object's: the settings named, a 502 of ours.
  if (code === 'NoSuchBucket')
    return new BadGateway('origin has no such bucket (NoSuchBucket); check S3_BUCKET').because('origin-bucket');
  if (code !== undefined && AUTH_CODES.has(code)) {
    return new BadGateway(
      `origin rejected the request signature (${code}); check the S3 credentials and region`,
    ).because('origin-credentials');
  }
  // A redirect (PermanentRedirect: another region's endpoint), a 304 unasked, or a 400 (the
  // request we built was refused): a setting or a defect of ours, not the client's.
  if (status < 400 || status === 400)
    return new BadGateway(
      `origin refused the request with status ${status}${code ? ` (${code})` : ''}; check ORIGIN_URL and the region`,
    ).because('origin-request');
  // S3's own refusal or failure: its status passes (its XML document does not), its code named.
  return new OriginAnswered(status, code);
}

/** The error for a plain HTTP origin's non-success answer to GET/HEAD. */
export function httpFailure(status: number): HttpError {
  return httpError(status).from(status);
}

function httpError(status: number): HttpError {
  if (status === 404) return new NotFound();
  if (status === 410) return new Gone();
  if (status >= 500) return new BadGateway(`origin failed with status ${status}`);
  return new OriginAnswered(status);
}

/** S3's error `<Code>` from the start of an XML error body; never throws. */
export function s3ErrorCode(xmlStart: string): string | undefined {
  return /<Code>([A-Za-z0-9.]{1,64})<\/Code>/.exec(xmlStart)?.[1];
}
