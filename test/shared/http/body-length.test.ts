import { describe, expect, it } from 'vitest';
import { bodyBytes, framedBytes, statedLength } from '../../../shared/http/body-length.ts';

describe('a body length by its framing', () => {
  it('counts the body by its framing: none for HEAD, 1xx, 204, 304 (RFC 9110 §6.4.1), else Content-Length', () => {
    expect(bodyBytes('GET', 200, '1000')).toBe(1000);
    expect(bodyBytes('HEAD', 200, '1000')).toBe(0);
    for (const status of [101, 204, 304]) expect(bodyBytes('GET', status, '10')).toBe(0);
    for (const length of [null, '', 'x', '-1', '1.5']) expect(bodyBytes('GET', 200, length)).toBe(0);
  });

  it('framedBytes: what the framing declares, and undefined for a body it declares no length for (chunked, RFC 9112 §6.3), which only counting can tell', () => {
    expect(framedBytes('GET', 200, '1000')).toBe(1000);
    expect(framedBytes('GET', 200, '0')).toBe(0);
    expect(framedBytes('HEAD', 200, null)).toBe(0);
    for (const status of [101, 204, 304]) expect(framedBytes('GET', status, null)).toBe(0);
    for (const length of [null, '', 'x', '-1', '1.5']) expect(framedBytes('GET', 200, length)).toBeUndefined();
  });

  it('statedLength: a Content-Length only as a sender spells it (RFC 9110 §8.6), so a slice framed otherwise is not taken for its bytes', () => {
    expect(statedLength('1000')).toBe(1000);
    expect(statedLength('0')).toBe(0);
    for (const length of [null, '', 'x', '-1', '1.5', '0100', ' 100', '100 ', '1e3', '99999999999999999'])
      expect(statedLength(length), String(length)).toBeUndefined();
  });
});
