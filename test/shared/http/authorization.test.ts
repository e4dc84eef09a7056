import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basicPassword, bearerToken } from '../../../shared/http/authorization.ts';

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
