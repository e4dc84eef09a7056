// What a client sees when the origin does not deliver the object: S3's XML error body never passes (its status and
// code do, so nothing it says of our credentials is echoed); a refusal of our own request is a 502 naming the setting.

import { clientRetryAfter, isBusy } from '../../shared/http/busy-origin.ts';
import { BadGateway, Gone, type HttpError, NotFound, OriginAnswered, OriginBusy } from '../../shared/http/errors.ts';

/** How much of an error body we read to find S3's error code. */
const ERROR_BODY_LIMIT = 4096;

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

/**
 * The error for an answer still busy after the retries (busy-retry.ts), whatever the origin's kind: the client may try
 * again soon (clientRetryAfter: the origin's Retry-After, capped short). Undefined (and the body untouched) for any
 * other answer.
 */
export async function busyFailure(response: Response): Promise<HttpError | undefined> {
  if (!isBusy(response.status)) return undefined;
  await response.body?.cancel();
  return new OriginBusy(clientRetryAfter(response.headers.get('retry-after'), Date.now())).from(response.status);
}

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

/** The first few KiB of a body as text; the body is always consumed or cancelled. */
export async function readErrorBody(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < ERROR_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A broken error body changes nothing: the status already says it failed.
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return text;
}
