import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../shared/http/errors.ts';
import { httpFailure, s3ErrorCode, s3Failure } from '../../../shield/origin/origin-errors.ts';

const AUTH_CODES = [
  'SignatureDoesNotMatch',
  'InvalidAccessKeyId',
  'AccessDenied',
  'InvalidToken',
  'ExpiredToken',
  'RequestTimeTooSkewed',
  'AuthorizationHeaderMalformed',
  'InvalidSecurity',
];

/** An S3 error body as the S3 API documents it (ErrorResponses, "REST error responses"). */
function s3ErrorXml(
  code: string,
  message = 'The request signature we calculated does not match the signature you provided.',
): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><AWSAccessKeyId>AKIAEXAMPLE</AWSAccessKeyId><RequestId>4442587FB7D0A2F9</RequestId></Error>`;
}

describe('s3Failure', () => {
  it('answers 404 for NoSuchKey', () => {
    const error = s3Failure(404, 'NoSuchKey');
    expect(error.status).toBe(404);
    expect(error.message).toBe('no such object');
  });

  it('answers 404 for a 404 without an error code, as for a HEAD request, which has no body', () => {
    expect(s3Failure(404, undefined).status).toBe(404);
  });

  it('answers 404 for NoSuchKey whatever the status it came with', () => {
    expect(s3Failure(403, 'NoSuchKey').status).toBe(404);
  });

  it('answers 502 for NoSuchBucket, a misconfiguration rather than a missing object', () => {
    const error = s3Failure(404, 'NoSuchBucket');
    expect(error.status).toBe(502);
    expect(error.message).toContain('NoSuchBucket');
    expect(error.message).toContain('S3_BUCKET');
  });

  it('answers 502 naming the code when the origin refuses our signature or credentials', () => {
    for (const code of AUTH_CODES) {
      const error = s3Failure(403, code);
      expect(error.status, code).toBe(502);
      expect(error.message, code).toBe(
        `origin rejected the request signature (${code}); check the S3 credentials and region`,
      );
    }
  });

  it('never puts any of the XML error body in the message', () => {
    const body = s3ErrorXml('SignatureDoesNotMatch');
    const error = s3Failure(403, s3ErrorCode(body));
    expect(error.message).toContain('SignatureDoesNotMatch');
    expect(error.message).not.toMatch(/[<>]/);
    expect(error.message).not.toContain('AKIAEXAMPLE');
    expect(error.message).not.toContain('signature we calculated');
  });

  it("passes S3's own status for a failure (5xx), naming its code (the status passes, the XML does not)", () => {
    expect(s3Failure(500, 'InternalError')).toMatchObject({
      status: 500,
      message: 'origin answered with status 500 (InternalError)',
    });
    expect(s3Failure(503, 'SlowDown')).toMatchObject({
      status: 503,
      message: 'origin answered with status 503 (SlowDown)',
    });
    expect(s3Failure(503, undefined)).toMatchObject({ status: 503, message: 'origin answered with status 503' });
  });

  it("passes S3's own status for a refusal of the object (403, 409, 412 …), naming status and code", () => {
    expect(s3Failure(403, undefined)).toMatchObject({ status: 403, message: 'origin answered with status 403' });
    expect(s3Failure(409, 'OperationAborted')).toMatchObject({
      status: 409,
      message: 'origin answered with status 409 (OperationAborted)',
    });
  });

  it('answers 502 when S3 refused the request we built (400, a redirect to another region)', () => {
    expect(s3Failure(400, 'InvalidArgument')).toMatchObject({
      status: 502,
      message: 'origin refused the request with status 400 (InvalidArgument); check ORIGIN_URL and the region',
      detail: 'origin-request',
    });
    expect(s3Failure(301, 'PermanentRedirect')).toMatchObject({ status: 502, detail: 'origin-request' });
  });
});

describe('httpFailure', () => {
  it('passes on 404 and 410, which say the resource is missing', () => {
    expect(httpFailure(404)).toMatchObject({ status: 404, message: 'not found' });
    expect(httpFailure(410)).toMatchObject({ status: 410, message: 'gone' });
  });

  it('answers 502 for an origin failure (5xx)', () => {
    for (const status of [500, 502, 503, 504])
      expect(httpFailure(status)).toMatchObject({ status: 502, message: `origin failed with status ${status}` });
  });

  it('passes on any other client error status with a message of our own', () => {
    for (const status of [401, 403, 429])
      expect(httpFailure(status)).toMatchObject({ status, message: `origin answered with status ${status}` });
  });

  it('builds an HttpError, whose response carries none of the origin body', async () => {
    const error = httpFailure(403);
    expect(error).toBeInstanceOf(HttpError);
    expect(await error.toResponse().text()).toBe('403 origin answered with status 403\n');
  });
});

describe('s3ErrorCode', () => {
  it('reads the Code of an S3 error body', () => {
    expect(s3ErrorCode(s3ErrorXml('NoSuchKey', 'The specified key does not exist.'))).toBe('NoSuchKey');
  });

  it('reads the first Code when there are several', () => {
    expect(s3ErrorCode('<Error><Code>AccessDenied</Code><Code>NoSuchKey</Code></Error>')).toBe('AccessDenied');
  });

  it('accepts letters, digits and dots up to 64 characters', () => {
    expect(s3ErrorCode('<Code>Err.v2.Throttled</Code>')).toBe('Err.v2.Throttled');
    expect(s3ErrorCode(`<Code>${'A'.repeat(64)}</Code>`)).toBe('A'.repeat(64));
  });

  it('is undefined for a body without a Code, or one cut off inside it', () => {
    expect(s3ErrorCode('')).toBeUndefined();
    expect(s3ErrorCode('<html><body>Bad Gateway</body></html>')).toBeUndefined();
    expect(s3ErrorCode('<Error><Code>NoSuch')).toBeUndefined();
  });

  it('refuses an odd code rather than pass on what the origin wrote', () => {
    for (const odd of [
      '',
      'No Such Key',
      '<b>x</b>',
      'a&lt;b',
      'Code"quoted"',
      'x\ny',
      'x-y',
      'Ünïcödé',
      'A'.repeat(65),
    ]) {
      expect(s3ErrorCode(`<Error><Code>${odd}</Code></Error>`), JSON.stringify(odd)).toBeUndefined();
    }
  });

  it('reads only the Code element, in its documented case', () => {
    expect(s3ErrorCode('<Error><code>NoSuchKey</code></Error>')).toBeUndefined();
    expect(s3ErrorCode('<Error><Code >NoSuchKey</Code></Error>')).toBeUndefined();
  });
});

describe('origin error properties', () => {
  it('s3ErrorCode never throws and yields only a short plain code', () => {
    const body = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('<', '>', '/', 'C', 'o', 'd', 'e', 'A', '.', ' ', '&'), maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 80 }).map((inner) => `<Error><Code>${inner}</Code></Error>`),
    );
    fc.assert(
      fc.property(body, (xml) => {
        const code = s3ErrorCode(xml);
        if (code !== undefined) expect(code).toMatch(/^[A-Za-z0-9.]{1,64}$/);
      }),
      { numRuns: 500 },
    );
  });

  it("an S3 failure is S3's status (a 404 for a missing key, a 502 for our own refusals) with no markup from the body", () => {
    const body = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc
        .oneof(fc.constantFrom(...AUTH_CODES, 'NoSuchKey', 'NoSuchBucket', 'SlowDown'), fc.string({ unit: 'binary' }))
        .map((code) => s3ErrorXml(code, '<secret>AKIA</secret>')),
    );
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 599 }), body, (status, xml) => {
        const error = s3Failure(status, s3ErrorCode(xml));
        expect(status <= 400 ? [404, 502] : [404, 502, status]).toContain(error.status);
        expect(error.message).not.toMatch(/[<>&"]/);
      }),
      { numRuns: 500 },
    );
  });
});
