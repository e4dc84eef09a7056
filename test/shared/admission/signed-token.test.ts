import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalMessage,
  readToken,
  splitQuery,
  tokenCookie,
  tokenQuery,
  withoutTokenCookie,
  withoutTokenParams,
} from '../../../shared/admission/signed-token.ts';

const SIG = 'A'.repeat(43);
const VALID = `tc_prefix=%2Fvideo%2F&tc_exp=1800000000&tc_kid=k1&tc_sig=${SIG}`;

function read(query: string): ReturnType<typeof readToken> {
  return readToken([...new URLSearchParams(query)]);
}

describe('readToken', () => {
  it('reads every parameter, in any order', () => {
    const token = read(`tc_sig=${SIG}&tc_cc=CH&tc_ip=192.0.2.1&tc_kid=k1&tc_nbf=5&tc_exp=9&tc_path=%2Fa.mp4`);
    expect(token).toMatchObject({
      ok: true,
      token: {
        keyId: 'k1',
        scope: { kind: 'path', path: '/a.mp4' },
        expires: 9,
        notBefore: 5,
        ip: '192.0.2.1',
        country: 'CH',
      },
    });
    expect(read(VALID).ok).toBe(true);
  });

  it('is missing without any parameter of ours', () => {
    expect(read('')).toEqual({ ok: false, reason: 'missing' });
  });

  it('is malformed for a parameter missing, twice, unknown, or out of its grammar', () => {
    for (const query of [
      'tc_exp=1',
      VALID.replace('tc_kid=k1&', ''),
      VALID.replace(/tc_sig=[^&]*/, ''),
      `${VALID}&tc_exp=1`,
      `${VALID}&tc_other=1`,
      `${VALID}&tc_path=%2Fa`,
      VALID.replace('%2Fvideo%2F', '%2Fvideo'),
      VALID.replace('%2Fvideo%2F', 'video%2F'),
      VALID.replace('%2Fvideo%2F', '%2Fa%0Ab%2F'),
      VALID.replace('1800000000', '-1'),
      VALID.replace('1800000000', '1e9'),
      VALID.replace('tc_kid=k1', 'tc_kid=k%0A1'),
      `${VALID}&tc_cc=ch`,
      `${VALID}&tc_ip=not-an-ip`,
      VALID.replace(SIG, SIG.slice(1)),
      VALID.replace(SIG, `${SIG.slice(1)}B`),
      VALID.replace(SIG, `${SIG.slice(1)}+`),
    ])
      expect(read(query), query).toEqual({ ok: false, reason: 'malformed' });
  });

  it('never throws, whatever the query holds', () => {
    const part = fc.oneof(
      fc.constantFrom('tc_exp', 'tc_kid', 'tc_sig', 'tc_prefix', 'tc_path', '=', '&', '%', '%0A'),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const result = read(parts.join(''));
        expect(result.ok === true || result.reason === 'missing' || result.reason === 'malformed').toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('round trip: the query the signer writes reads back as the same token', () => {
    fc.assert(
      fc.property(
        fc.record({
          keyId: fc.stringMatching(/^[A-Za-z0-9._~-]{1,64}$/),
          path: fc.stringMatching(/^\/[a-z0-9%/._-]{0,40}$/).map((p) => p.replace(/%(?![0-9A-F]{2})/g, '')),
          expires: fc.integer({ min: 0, max: 10 ** 11 }),
          signature: fc.uint8Array({ minLength: 32, maxLength: 32 }),
        }),
        ({ keyId, path, expires, signature }) => {
          const token = {
            keyId,
            scope: { kind: 'path' as const, path },
            expires,
            notBefore: undefined,
            ip: undefined,
            country: undefined,
            signature,
          };
          expect(read(tokenQuery(token))).toEqual({ ok: true, token });
        },
      ),
    );
  });
});

describe('canonicalMessage', () => {
  it('puts each field on its own line, the version first, absent ones empty', () => {
    const token = {
      keyId: 'k1',
      scope: { kind: 'prefix' as const, path: '/v/' },
      expires: 9,
      notBefore: undefined,
      ip: undefined,
      country: 'CH',
    };
    expect(canonicalMessage(token)).toBe('tiercache-token-v1\nk1\nprefix\n/v/\n9\n\n\nCH');
  });
});

describe('our parameters taken off a URL', () => {
  it('keeps the rest of the query as written, in its order', () => {
    expect(withoutTokenParams(`/a.mp4?b=2&${VALID}&a=%41`)).toBe('/a.mp4?b=2&a=%41');
    expect(withoutTokenParams(`http://h/a.mp4?${VALID}`)).toBe('http://h/a.mp4');
    expect(withoutTokenParams('/a.mp4?x=tc_')).toBe('/a.mp4?x=tc_');
    expect(withoutTokenParams('/a.mp4')).toBe('/a.mp4');
  });

  it('takes off an encoded spelling of our names too (tc%5Fsig is tc_sig)', () => {
    expect(splitQuery('tc%5Fsig=x&k=v')).toEqual({ ours: [['tc_sig', 'x']], rest: 'k=v' });
    expect(withoutTokenParams('/a?tc%5Fsig=x&k=v')).toBe('/a?k=v');
  });
});

describe('the tc_token cookie', () => {
  it('is read among other cookies, and taken off leaving them', () => {
    const cookie = `a=1; tc_token=${VALID}; b=2`;
    expect(tokenCookie(cookie)).toBe(VALID);
    expect(withoutTokenCookie(cookie)).toBe('a=1; b=2');
    expect(withoutTokenCookie(`tc_token=${VALID}`)).toBeNull();
    expect(tokenCookie('a=1; xtc_token=2')).toBeNull();
    expect(tokenCookie(null)).toBeNull();
  });
});
