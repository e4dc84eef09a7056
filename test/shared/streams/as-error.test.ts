import { describe, expect, it } from 'vitest';
import { LengthMismatch } from '../../../shared/http/errors.ts';
import { asError } from '../../../shared/streams/as-error.ts';

describe('asError', () => {
  it('is the reason itself when it is an Error', () => {
    const reason = new LengthMismatch('short');
    expect(asError(reason)).toBe(reason);
  });

  it('is an Error saying the reason otherwise', () => {
    for (const [reason, message] of [
      ['gone', 'gone'],
      [42, '42'],
      [undefined, 'undefined'],
    ] as const) {
      const error = asError(reason);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toBe(message);
    }
  });
});
