// Our APIs' JSON bodies (shared/http/json-fields.ts): an object of known fields, lists of strings, and refusals that
// say what was expected and what arrived, cut short; never a throw, whatever the text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { excerpt, jsonObject, objectOf, stringList, written } from '../../../shared/http/json-fields.ts';

describe('jsonObject', () => {
  it('reads an object of known fields', () => {
    expect(jsonObject('{"a": 1}', ['a', 'b'], '{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('refuses text that is not JSON, what is not an object, and unknown fields, saying which', () => {
    expect(jsonObject('a=1', ['a'], '{"a": 1}')).toEqual({
      ok: false,
      reason: 'expected a JSON object like {"a": 1}, got text that is not JSON ("a=1")',
    });
    expect(jsonObject('[1]', ['a'], '')).toMatchObject({ reason: 'expected a JSON object with a, got an array' });
    expect(jsonObject('null', ['a'], '')).toMatchObject({ reason: 'expected a JSON object with a, got null' });
    expect(jsonObject('"x"', ['a'], '')).toMatchObject({ reason: 'expected a JSON object with a, got string' });
    expect(objectOf({ c: 1 }, 'each item', ['a', 'b'])).toMatchObject({
      reason: 'expected only the fields a, b, got "c"',
    });
  });

  it('never throws, and refuses with a reason that starts with "expected"', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const parsed = jsonObject(text, ['a'], '{}');
        if (!parsed.ok) expect(parsed.reason.startsWith('expected')).toBe(true);
      }),
    );
  });
});

describe('stringList', () => {
  it('reads non-empty strings, trimmed; absent is empty', () => {
    expect(stringList([' a ', 'b'], 'f', 10)).toEqual({ ok: true, value: ['a', 'b'] });
    expect(stringList(undefined, 'f', 10)).toEqual({ ok: true, value: [] });
  });

  it('refuses what is not a list of short non-empty strings, naming the field', () => {
    expect(stringList('/a', 'f', 10)).toMatchObject({
      reason: 'expected "f" to be an array of strings, got "\\"/a\\""',
    });
    expect(stringList([1], 'f', 10)).toMatchObject({ reason: 'expected "f" to hold non-empty strings, got "1"' });
    expect(stringList(['  '], 'f', 10)).toMatchObject({ ok: false });
    expect(stringList(['x'.repeat(11)], 'f', 10)).toMatchObject({
      reason: 'expected each of "f" to be at most 10 characters, got 11',
    });
  });
});

describe('what arrived, cut short', () => {
  it('shows JSON as written, at most 60 characters', () => {
    expect(written(undefined)).toBe('nothing');
    expect(written({})).toBe('"{}"');
    expect(excerpt('x'.repeat(61))).toBe(`"${'x'.repeat(60)}…"`);
  });
});
