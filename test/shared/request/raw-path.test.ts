import { describe, expect, it } from 'vitest';
import { rawPath } from '../../../shared/request/raw-path.ts';

describe('rawPath', () => {
  it('is the path and query of a raw URL, unparsed', () => {
    expect(rawPath('https://cdn.example/a/b?c=1')).toBe('/a/b?c=1');
    expect(rawPath('https://cdn.example')).toBe('/');
    expect(rawPath('http://h:8080//x/../y')).toBe('//x/../y');
  });
});
