import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { CREDENTIAL_HEADER, SHIELD_ORIGIN, credentialMatches } from '../../shared/internal.ts';

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

describe('internal hop constants', () => {
  it('names the credential header under our own prefix, which is never forwarded to an origin', () => {
    expect(CREDENTIAL_HEADER).toBe('x-tiercache-credential');
  });

  it('addresses the shield by an origin with no meaning of its own', () => {
    expect(new URL(SHIELD_ORIGIN).pathname).toBe('/');
  });
});
