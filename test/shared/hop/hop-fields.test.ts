import { describe, expect, it } from 'vitest';
import { CREDENTIAL_HEADER, SHIELD_ORIGIN } from '../../../shared/hop/hop-fields.ts';

describe('the hop fields', () => {
  it('names the credential header under our own prefix, which is never forwarded to an origin', () => {
    expect(CREDENTIAL_HEADER).toBe('x-tiercache-credential');
  });

  it('addresses the shield by an origin with no meaning of its own', () => {
    expect(new URL(SHIELD_ORIGIN).pathname).toBe('/');
  });
});
