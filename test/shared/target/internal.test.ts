import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { CREDENTIAL_HEADER, SHIELD_ORIGIN, credentialMatches, isInternal } from '../../../shared/target/internal.ts';

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

describe('isInternal', () => {
  it('reserves every path under /__tiercache/, however it is spelled once parsed', () => {
    for (const path of ['/__tiercache/purge', '/__tiercache/slices/0-0/1/-/x', '/__tiercache', '/__tiercache%2Fpurge', '/__tiercache%2fx%2F..%2Fpurge', '/%5F_tiercache/purge']) expect(isInternal(path), path).toBe(true);
  });

  it('leaves every other path to the objects', () => {
    for (const path of ['/', '/__tiercache-docs/a', '/x/__tiercache/purge', '/__TIERCACHE/purge', '/a%2F__tiercache/b', '/%']) expect(isInternal(path), path).toBe(false);
  });

  it('checks each path it is given: the one routed and the one forwarded', () => {
    expect(isInternal('/x', '/__tiercache/purge')).toBe(true);
    expect(isInternal('/x', '/y')).toBe(false);
  });
});
