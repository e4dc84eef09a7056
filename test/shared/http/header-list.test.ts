import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitList } from '../../../shared/http/header-list.ts';

describe('splitList (RFC 9110 §5.6.1)', () => {
  it('splits on commas and trims optional whitespace', () => {
    expect(splitList(' a , b,c ')).toEqual(['a', 'b', 'c']);
  });

  it('drops empty list members, as recipients must accept them', () => {
    expect(splitList(',a,,b,')).toEqual(['a', 'b']);
  });

  it('keeps commas inside quoted strings (RFC 9110 §5.6.4)', () => {
    expect(splitList('a="x, y", b')).toEqual(['a="x, y"', 'b']);
  });

  it('treats a backslash inside quotes as escaping the next character, even a backslash', () => {
    expect(splitList('a="C:\\\\", b')).toEqual(['a="C:\\\\"', 'b']);
    expect(splitList('a="say \\"hi, there\\"", b')).toEqual(['a="say \\"hi, there\\""', 'b']);
  });

  it('never throws and never returns an empty or untrimmed member', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), (value) => {
        for (const member of splitList(value)) {
          expect(member.length).toBeGreaterThan(0);
          expect(member).toBe(member.trim());
        }
      }),
    );
  });
});
