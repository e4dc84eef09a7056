import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basicPassword, bearerToken, credentialMatches } from '../../../shared/http/authorization.ts';

describe('bearerToken (RFC 6750 §2.1)', () => {
  it('reads the token, the scheme in any case', () => {
    expect(bearerToken('Bearer abc.def')).toBe('abc.def');
    expect(bearerToken('bearer   abc ')).toBe('abc');
  });

  it('is null for anything else', () => {
    for (const value of [null, '', 'Bearer', 'Bearer ', 'Bearer a b', 'Basic eDp5', 'Token abc'])
      expect(bearerToken(value)).toBeNull();
  });
});

describe('basicPassword (RFC 7617 §2)', () => {
  it('reads the password whatever the user, a colon in the password kept', () => {
    expect(basicPassword(`Basic ${btoa('x:secret')}`)).toBe('secret');
    expect(basicPassword(`basic ${btoa(':a:b')}`)).toBe('a:b');
  });

  it('is null for no colon, bad base64 or another scheme', () => {
    for (const value of [null, '', 'Basic', 'Basic !!!', `Basic ${btoa('nocolon')}`, 'Bearer abc'])
      expect(basicPassword(value)).toBeNull();
  });

  it('never throws, whatever the field holds', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        expect(() => [bearerToken(value), basicPassword(value), basicPassword(`Basic ${value}`)]).not.toThrow();
      }),
    );
  });
});

const TOKEN = 's3cr3t-shield-token';

describe('credentialMatches', () => {
  it('is true only for exactly the expected token', () => {
    expect(credentialMatches(TOKEN, TOKEN)).toBe(true);
  });

  it('is false when no credential was presented', () => {
    expect(credentialMatches(null, TOKEN)).toBe(false);
    expect(credentialMatches('', TOKEN)).toBe(false);
  });

  it('is false for everything when no token is configured, so the shield refuses all', () => {
    expect(credentialMatches('anything', undefined)).toBe(false);
    expect(credentialMatches(null, undefined)).toBe(false);
    expect(credentialMatches('', '')).toBe(false);
    expect(credentialMatches('anything', '')).toBe(false);
  });

  it('is false for a prefix of the token', () => {
    expect(credentialMatches(TOKEN.slice(0, -1), TOKEN)).toBe(false);
    expect(credentialMatches(TOKEN.slice(0, 1), TOKEN)).toBe(false);
  });

  it('is false for a longer string that starts with the token', () => {
    expect(credentialMatches(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(credentialMatches(TOKEN + TOKEN, TOKEN)).toBe(false);
  });

  it('is false for a string of the same length differing in one character, wherever it is', () => {
    for (let i = 0; i < TOKEN.length; i++) {
      const wrong = `${TOKEN.slice(0, i)}${TOKEN[i] === 'x' ? 'y' : 'x'}${TOKEN.slice(i + 1)}`;
      expect(credentialMatches(wrong, TOKEN), wrong).toBe(false);
    }
  });

  it('compares case-sensitively', () => {
    expect(credentialMatches(TOKEN.toUpperCase(), TOKEN)).toBe(false);
  });

  it('is true exactly when the presented string equals a non-empty expected token', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '\u00e9', '\ud83d', '\ude00'), maxLength: 6 });
    fc.assert(
      fc.property(text, text, (presented, expected) => {
        expect(credentialMatches(presented, expected)).toBe(expected.length > 0 && presented === expected);
      }),
      { numRuns: 2000 },
    );
  });
});
