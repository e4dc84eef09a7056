// The passive health of an origin's endpoints (shield/origin/endpoint-health.ts), and ORIGIN_URL listing them
// (shared/config/config.ts): which endpoint is asked first, how long a failed one is left alone, what is reported.

import { describe, expect, it } from 'vitest';
import { MAX_ORIGIN_ENDPOINTS, parseConfig } from '../../../shared/config/config.ts';
import { ConfigError } from '../../../shared/http/errors.ts';
import { EndpointHealth, OPEN_MAX_MS } from '../../../shield/origin/endpoint-health.ts';

const A = 'https://gateway.us1.storjshare.io';
const B = 'https://gateway.eu1.storjshare.io';
const C = 'https://gateway.ap1.storjshare.io';
const T0 = Date.parse('2026-12-04T12:00:00Z');

/** A health whose jitter is fixed: `random` 1 opens for the full backoff, 0 for half of it. */
const health = (random = 1): EndpointHealth => new EndpointHealth(() => random);

describe('EndpointHealth', () => {
  it('asks the endpoints in the configured order while none has failed', () => {
    expect(health().order([A, B, C], T0)).toEqual([0, 1, 2]);
  });

  it('skips a failed endpoint while its circuit is open, and tries it once when it half-opens', () => {
    const endpoints = health();
    endpoints.failed(A, T0);
    expect(endpoints.order([A, B, C], T0 + 1)).toEqual([1, 2]);
    expect(endpoints.report([A], T0 + 1)[0]).toMatchObject({ state: 'open', failures: 1, openUntil: T0 + 2_000 });
    // Half-open: the next request tries it; while that trial runs, the others go elsewhere.
    expect(endpoints.order([A, B, C], T0 + 2_000)).toEqual([0, 1, 2]);
    endpoints.asking(A, T0 + 2_000);
    expect(endpoints.order([A, B, C], T0 + 2_001)).toEqual([1, 2]);
    endpoints.answered(A, 40);
    expect(endpoints.order([A, B, C], T0 + 2_002)).toEqual([0, 1, 2]);
    expect(endpoints.report([A], T0 + 2_002)[0]).toEqual({
      endpoint: A,
      state: 'closed',
      failures: 0,
      firstByteMs: 40,
    });
  });

  it('backs off twice as long each time in a row, jittered, never past OPEN_MAX_MS', () => {
    const full = health(1);
    const half = health(0);
    const until: number[] = [];
    for (let failure = 1; failure <= 8; failure++) {
      full.failed(A, T0);
      half.failed(A, T0);
      const open = full.report([A], T0)[0]?.openUntil ?? 0;
      until.push(open - T0);
      // The least jitter: half the doubled backoff, within the same cap.
      expect((half.report([A], T0)[0]?.openUntil ?? 0) - T0).toBe(Math.min(OPEN_MAX_MS, 1_000 * 2 ** (failure - 1)));
    }
    expect(until).toEqual([2_000, 4_000, 8_000, 16_000, OPEN_MAX_MS, OPEN_MAX_MS, OPEN_MAX_MS, OPEN_MAX_MS]);
  });

  it("heeds a Retry-After (Storj's 120 s) up to OPEN_MAX_MS: a long one is never waited out in full", () => {
    const endpoints = health();
    endpoints.failed(A, T0, 120_000);
    expect(endpoints.report([A], T0)[0]?.openUntil).toBe(T0 + OPEN_MAX_MS);
    const short = health();
    short.failed(B, T0, 5_000);
    expect(short.report([B], T0)[0]?.openUntil).toBe(T0 + 5_000);
  });

  it('every circuit open: asks only the endpoint to reopen soonest (an outage costs one timeout, not one each)', () => {
    const endpoints = health();
    endpoints.failed(A, T0, 20_000);
    endpoints.failed(B, T0, 5_000);
    expect(endpoints.order([A, B, C], T0 + 1)).toEqual([2]);
    endpoints.failed(C, T0, 10_000);
    expect(endpoints.order([A, B, C], T0 + 1)).toEqual([1]);
  });

  it('a request whose client left says nothing of the endpoint, but ends its trial', () => {
    const endpoints = health();
    endpoints.failed(A, T0);
    endpoints.asking(A, T0 + 2_000);
    endpoints.released(A);
    expect(endpoints.order([A, B], T0 + 2_000)).toEqual([0, 1]);
    expect(endpoints.report([A], T0 + 2_000)[0]).toMatchObject({ state: 'half-open', failures: 1 });
  });

  it('averages first bytes with decay', () => {
    const endpoints = health();
    endpoints.answered(A, 100);
    endpoints.answered(A, 200);
    expect(endpoints.report([A], T0)[0]?.firstByteMs).toBe(125);
  });
});

describe('ORIGIN_URL listing endpoints', () => {
  const s3 = { S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' };

  it('reads one, or several separated by commas or spaces, the preferred first', () => {
    expect(parseConfig({ ...s3, ORIGIN_URL: A }).originEndpoints.map(String)).toEqual([`${A}/`]);
    const several = parseConfig({ ...s3, ORIGIN_URL: ` ${A}, ${B}\n${C} ` });
    expect(several.originEndpoints.map((url) => url.origin)).toEqual([A, B, C]);
    expect(several.originUrl.origin).toBe(A);
  });

  it('defaults to the Storj gateway alone', () => {
    expect(parseConfig(s3).originEndpoints.map((url) => url.origin)).toEqual(['https://gateway.storjshare.io']);
  });

  it('refuses a repeated endpoint, too many, none, or any one that is not http(s)', () => {
    const refused = (value: string): string => {
      try {
        parseConfig({ ...s3, ORIGIN_URL: value });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error(`accepted ${value}`);
    };
    expect(refused(`${A} ${A}`)).toContain('twice');
    const many = Array.from({ length: MAX_ORIGIN_ENDPOINTS + 1 }, (_, i) => `https://g${i}.example`).join(',');
    expect(refused(many)).toContain(`at most ${MAX_ORIGIN_ENDPOINTS}`);
    expect(refused(' , ')).toContain('names no endpoint');
    expect(refused(`${A} ftp://x.example`)).toContain('http or https');
  });
});
