import { describe, expect, it } from 'vitest';
import { BoundedMemo, REMEMBERED_CHARS } from '../../worker/bounded-memo.ts';

describe('BoundedMemo', () => {
  it('remembers what it was given under its key', () => {
    const memo = new BoundedMemo<number>();
    memo.set('https://a.example/x', 1);
    memo.set('https://a.example/y', 2);
    expect(memo.get('https://a.example/x')).toBe(1);
    expect(memo.get('https://a.example/y')).toBe(2);
    expect(memo.get('https://a.example/z')).toBeUndefined();
  });

  it('forgets everything once its keys would pass the bound, and keeps the newest', () => {
    const memo = new BoundedMemo<string>();
    const half = 'x'.repeat(REMEMBERED_CHARS / 2);
    memo.set(`a${half}`, 'a');
    memo.set(`b${half.slice(2)}`, 'b');
    expect(memo.get(`a${half}`)).toBe('a');
    memo.set(`c${half}`, 'c');
    expect(memo.get(`a${half}`)).toBeUndefined();
    expect(memo.get(`b${half.slice(2)}`)).toBeUndefined();
    expect(memo.get(`c${half}`)).toBe('c');
  });
});
