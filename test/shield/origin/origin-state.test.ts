import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canServe, ORIGIN_STATES } from '../../../shared/http/health-report.ts';
import { AUTH_CODES } from '../../../shield/origin/origin-errors.ts';
import { needsErrorCode, s3Finding, siteFinding, unanswered } from '../../../shield/origin/origin-state.ts';

describe('s3Finding: what an S3 answer to the health probe says of the origin', () => {
  it('ok for the object itself (200, a 206 of its first byte, a 304)', () => {
    for (const status of [200, 206, 304]) expect(s3Finding(status, undefined).origin, String(status)).toBe('ok');
  });

  it('ok for 404 NoSuchKey: the bucket and the signature were accepted, and the detail says the key names no object', () => {
    const finding = s3Finding(404, 'NoSuchKey');
    expect(finding.origin).toBe('ok');
    expect(finding.detail).toMatch(/names no object.*NoSuchKey.*credentials were accepted/);
  });

  it('no-such-bucket for 404 NoSuchBucket, naming S3_BUCKET', () => {
    expect(s3Finding(404, 'NoSuchBucket')).toEqual({
      origin: 'no-such-bucket',
      detail: expect.stringMatching(/NoSuchBucket.*S3_BUCKET/),
    });
  });

  it('credentials for InvalidAccessKeyId, SignatureDoesNotMatch and AccessDenied, each naming what to check', () => {
    expect(s3Finding(403, 'InvalidAccessKeyId').detail).toMatch(/403 InvalidAccessKeyId.*S3_ACCESS_KEY_ID/);
    expect(s3Finding(403, 'SignatureDoesNotMatch').detail).toMatch(/403 SignatureDoesNotMatch.*S3_SECRET_ACCESS_KEY/);
    expect(s3Finding(403, 'AccessDenied').detail).toMatch(/403 AccessDenied.*permissions.*HEALTH_KEY/);
    expect(s3Finding(400, 'AuthorizationHeaderMalformed').detail).toMatch(/S3_REGION/);
    for (const code of AUTH_CODES) expect(s3Finding(403, code).origin, code).toBe('credentials');
  });

  it('credentials for a 403 without a code (a HEAD answer has no body)', () => {
    expect(s3Finding(403, undefined).origin).toBe('credentials');
  });

  it('error, not ok, for a 404 without a code: a missing key and a missing bucket look the same then', () => {
    expect(s3Finding(404, undefined)).toEqual({
      origin: 'error',
      detail: expect.stringMatching(/no such key or no such bucket/),
    });
  });

  it('error for a busy origin, a 5xx, a redirect to another region and a 400', () => {
    expect(s3Finding(503, 'SlowDown').detail).toMatch(/busy \(503 SlowDown\)/);
    expect(s3Finding(500, 'InternalError').detail).toMatch(/failed \(500 InternalError\)/);
    expect(s3Finding(301, 'PermanentRedirect').detail).toMatch(/301 PermanentRedirect.*S3_REGION/);
    for (const [status, code] of [
      [503, 'SlowDown'],
      [500, undefined],
      [301, 'PermanentRedirect'],
      [400, 'InvalidRequest'],
    ] as const) {
      expect(s3Finding(status, code).origin, `${status} ${code}`).toBe('error');
    }
  });

  it('for any status and code: a known state, a detail without markup, and ok only for the object or NoSuchKey', () => {
    const codes = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(...AUTH_CODES, 'NoSuchKey', 'NoSuchBucket', 'SlowDown'),
      fc.stringMatching(/^[A-Za-z0-9.]{1,64}$/),
    );
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 999 }), codes, (status, code) => {
        const finding = s3Finding(status, code);
        expect(ORIGIN_STATES).toContain(finding.origin);
        expect(finding.detail).not.toMatch(/[<>]/);
        const object = (status >= 200 && status < 300) || status === 304;
        expect(canServe(finding.origin)).toBe(object || code === 'NoSuchKey');
      }),
    );
  });
});

describe('needsErrorCode', () => {
  it('asks for the code of a 3xx or 4xx (the cause is in the body HEAD does not have), not of the object or a 5xx', () => {
    expect([200, 206, 304, 301, 400, 403, 404, 500, 503].map(needsErrorCode)).toEqual([
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('siteFinding', () => {
  it('ok for any answer below 500, a 404 page and a redirect included; error for a 5xx', () => {
    for (const status of [200, 204, 301, 304, 401, 404, 405, 499])
      expect(siteFinding(status).origin, String(status)).toBe('ok');
    for (const status of [500, 502, 503, 599])
      expect(siteFinding(status), String(status)).toEqual({ origin: 'error', detail: `the site failed (${status})` });
  });
});

describe('unanswered', () => {
  it('timeout names the time waited; unreachable names ORIGIN_URL', () => {
    expect(unanswered(true, 300)).toEqual({ origin: 'timeout', detail: 'the origin did not answer within 300 ms' });
    expect(unanswered(false, 300)).toEqual({ origin: 'unreachable', detail: expect.stringMatching(/ORIGIN_URL/) });
  });
});
