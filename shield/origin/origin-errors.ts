// What a client sees when the origin does not deliver the object. The origin's own error body
// (S3's XML, a site's error page) is never passed on: only its status and, for S3, the error
// code, which names the cause without echoing anything the origin said about our credentials.

import { BadGateway, HttpError, NotFound } from '../../shared/http-error.ts';

/** S3 error codes that mean our request (its signature or credentials) was refused. */
const AUTH_CODES = new Set([
  'SignatureDoesNotMatch', 'InvalidAccessKeyId', 'AccessDenied', 'InvalidToken', 'ExpiredToken',
  'RequestTimeTooSkewed', 'AuthorizationHeaderMalformed', 'InvalidSecurity',
]);

/** The error for an S3 origin's non-success answer; `code` is S3's `<Code>`, when it sent one. */
export function s3Failure(status: number, code: string | undefined): HttpError {
  return s3Error(status, code).from(status);
}

function s3Error(status: number, code: string | undefined): HttpError {
  if (code === 'NoSuchKey' || (status === 404 && code !== 'NoSuchBucket')) return new NotFound('no such object');
  if (code === 'NoSuchBucket') return new BadGateway('origin has no such bucket (NoSuchBucket); check S3_BUCKET');
  if (code !== undefined && AUTH_CODES.has(code)) {
    return new BadGateway(`origin rejected the request signature (${code}); check the S3 credentials and region`);
  }
  if (status >= 500) return new BadGateway(`origin failed with status ${status}`);
  return new BadGateway(`origin refused the request with status ${status}${code ? ` (${code})` : ''}`);
}

/** The error for a plain HTTP origin's non-success answer to GET/HEAD. */
export function httpFailure(status: number): HttpError {
  return httpError(status).from(status);
}

function httpError(status: number): HttpError {
  if (status === 404 || status === 410) return new HttpError(status, status === 404 ? 'not found' : 'gone');
  if (status >= 500) return new BadGateway(`origin failed with status ${status}`);
  return new HttpError(status, `origin answered with status ${status}`);
}

/** S3's error `<Code>` from the start of an XML error body; never throws. */
export function s3ErrorCode(xmlStart: string): string | undefined {
  return /<Code>([A-Za-z0-9.]{1,64})<\/Code>/.exec(xmlStart)?.[1];
}
