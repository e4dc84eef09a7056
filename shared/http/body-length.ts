// A response's body length as its framing declares it (RFC 9110 §6.4.1, §8.6; RFC 9112 §6.3): what a
// record counts as sent, and what a meter must count itself when the framing does not say.

/**
 * The body bytes a response's framing declares; undefined when it has a body whose length it
 * does not declare (no Content-Length: chunked, or closed at its end, RFC 9112 §6.3), which
 * only counting the body as it passes can tell.
 */
export function framedBytes(method: string, status: number, contentLength: string | null): number | undefined {
  if (method === 'HEAD' || status < 200 || status === 204 || status === 304) return 0;
  if (contentLength === null || !/^\d{1,16}$/.test(contentLength)) return undefined;
  const length = Number(contentLength);
  return Number.isSafeInteger(length) ? length : undefined;
}

/**
 * The body bytes a response carries by its framing: none for HEAD, 1xx, 204 and 304 (RFC 9110 §6.4.1), else its
 * Content-Length (0 without one).
 */
export function bodyBytes(method: string, status: number, contentLength: string | null): number {
  return framedBytes(method, status, contentLength) ?? 0;
}

/**
 * A Content-Length field's value as a number, only in the one spelling a sender writes it (RFC 9110 §8.6: 1*DIGIT, no
 * leading zero); undefined when absent or anything else: a slice's framing is compared with its bytes, never guessed.
 */
export function statedLength(contentLength: string | null): number | undefined {
  if (contentLength === null || !/^(?:0|[1-9]\d{0,15})$/.test(contentLength)) return undefined;
  const length = Number(contentLength);
  return Number.isSafeInteger(length) ? length : undefined;
}
