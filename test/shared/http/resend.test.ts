// When the edge sends a shield request once more (shared/http/resend.ts): a GET or HEAD whose connection failed
// before any answer (a kept-alive connection the shield closed as it was reused), never one with a body, never one
// its client gave up on.

import { describe, expect, it } from 'vitest';
import { RESEND_ATTEMPTS, resendable, withResend } from '../../../shared/http/resend.ts';

/** A send whose connection fails `failures` times ("Network connection lost"), then answers; counts its calls. */
function flaky(failures: number): { send: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    send() {
      calls++;
      return calls <= failures ? Promise.reject(new Error('Network connection lost.')) : Promise.resolve('answer');
    },
  };
}

const never = (): boolean => false;

describe('which shield requests are sent again', () => {
  it('a GET or a HEAD without a body', () => {
    expect(resendable('GET', undefined)).toBe(true);
    expect(resendable('HEAD', null)).toBe(true);
  });

  it('not one with a body, nor another method', () => {
    expect(resendable('GET', new Response('x').body)).toBe(false);
    expect(resendable('PUT', new Response('x').body)).toBe(false);
    expect(resendable('POST', undefined)).toBe(false);
    expect(resendable('DELETE', undefined)).toBe(false);
  });
});

describe('a send whose connection failed before any answer', () => {
  it('is answered by the attempt after it', async () => {
    const shield = flaky(1);
    await expect(withResend(shield.send, true, never)).resolves.toBe('answer');
    expect(shield.calls()).toBe(2);
  });

  it(`fails with its own error after ${RESEND_ATTEMPTS} attempts in all`, async () => {
    const shield = flaky(RESEND_ATTEMPTS);
    await expect(withResend(shield.send, true, never)).rejects.toThrow('Network connection lost.');
    expect(shield.calls()).toBe(RESEND_ATTEMPTS);
  });

  it('is not sent again when it may not be, or once its client has gone', async () => {
    const notResendable = flaky(1);
    await expect(withResend(notResendable.send, false, never)).rejects.toThrow();
    expect(notResendable.calls()).toBe(1);
    const gone = flaky(1);
    await expect(withResend(gone.send, true, () => true)).rejects.toThrow();
    expect(gone.calls()).toBe(1);
  });
});
