import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  basicPassword,
  bearerToken,
  constantTimeEqual,
  credentialMatches,
} from '../../../shared/admission/credential.ts';

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

/** A byte string that counts every read of an index (through a Proxy, as the comparison sees it). */
function counted(bytes: Uint8Array): { view: Uint8Array; reads: Set<number> } {
  const reads = new Set<number>();
  const view = new Proxy(bytes, {
    get(target, property) {
      if (typeof property === 'string' && /^\d+$/.test(property)) reads.add(Number(property));
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { view, reads };
}

describe('constantTimeEqual', () => {
  const bytes = fc.uint8Array({ maxLength: 48 });

  it('is true exactly when the two byte strings are equal', () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        const equal = a.length === b.length && a.every((byte, i) => byte === b[i]);
        expect(constantTimeEqual(a, b)).toBe(equal);
        expect(constantTimeEqual(a, a.slice())).toBe(true);
      }),
    );
  });

  it('reads every byte of both, wherever the first difference is', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 48 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (a, at, bit) => {
          const b = a.slice();
          const index = at % b.length;
          b[index] = (b[index] ?? 0) ^ bit;
          const left = counted(a);
          const right = counted(b);
          expect(constantTimeEqual(left.view, right.view)).toBe(false);
          expect(left.reads.size).toBe(a.length);
          expect(right.reads.size).toBe(b.length);
        },
      ),
    );
  });

  it('is false for a prefix, reading the longer one to its end', () => {
    const long = counted(Uint8Array.from([1, 2, 3, 4]));
    expect(constantTimeEqual(Uint8Array.from([1, 2]), long.view)).toBe(false);
    expect(long.reads.size).toBe(4);
  });
});
