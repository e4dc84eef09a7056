import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  directiveFields,
  directiveSeconds,
  hasDirective,
  parseCacheControl,
} from '../../../shared/http/cache-control.ts';

const MAX_DELTA = 2 ** 31;

/** The directives as a plain object, so a failure shows the whole parse. */
function parsed(value: string): Record<string, string | true> {
  return Object.fromEntries(parseCacheControl(value));
}

describe('parseCacheControl', () => {
  it('has no directives for an absent or empty field', () => {
    expect(parseCacheControl(null).size).toBe(0);
    expect(parseCacheControl(undefined).size).toBe(0);
    expect(parseCacheControl('').size).toBe(0);
    expect(parseCacheControl(' , ,, ').size).toBe(0);
  });

  it('records a directive without an argument as present', () => {
    expect(parsed('no-store')).toEqual({ 'no-store': true });
    expect(parsed('public, no-cache, must-revalidate')).toEqual({
      public: true,
      'no-cache': true,
      'must-revalidate': true,
    });
  });

  it('records a token argument as written (RFC 9111 §5.2)', () => {
    expect(parsed('max-age=60, s-maxage=120')).toEqual({ 'max-age': '60', 's-maxage': '120' });
  });

  it('treats directive names case-insensitively (RFC 9111 §5.2: "Cache directives are case-insensitive")', () => {
    const cc = parseCacheControl('No-Store, MAX-AGE=5');
    expect(hasDirective(cc, 'no-store')).toBe(true);
    expect(directiveSeconds(cc, 'max-age')).toBe(5);
  });

  it('tolerates whitespace around directives', () => {
    expect(parsed('  public ,\tmax-age=10  ')).toEqual({ public: true, 'max-age': '10' });
  });

  it('accepts the quoted-string form of an argument (RFC 9111 §5.2: recipients accept both forms)', () => {
    expect(directiveSeconds(parseCacheControl('max-age="30"'), 'max-age')).toBe(30);
  });

  it('keeps commas inside a quoted argument within that argument', () => {
    expect(parsed('private="set-cookie, x-user", max-age=5')).toEqual({
      private: 'set-cookie, x-user',
      'max-age': '5',
    });
  });

  it('unescapes quoted-pairs in a quoted argument (RFC 9110 §5.6.4)', () => {
    expect(parsed('ext="a \\"b\\" \\\\ c", public')).toEqual({ ext: 'a "b" \\ c', public: true });
  });

  it('does not end a quoted argument at an escaped quote followed by a comma', () => {
    expect(parsed('ext="x\\", y", no-store')).toEqual({ ext: 'x", y', 'no-store': true });
  });

  it('ignores a piece whose name is not a token', () => {
    expect(parsed('=5, max age=3, "quoted", (x), public')).toEqual({ public: true });
  });

  it('keeps the first occurrence when a repeated directive has no argument in one of them', () => {
    expect(parsed('no-cache, no-cache="set-cookie"')).toEqual({ 'no-cache': true });
    expect(parsed('max-age=5, max-age')).toEqual({ 'max-age': '5' });
  });

  // RFC 9111 §4.2.1: "When there is more than one value present for a given directive ...
  // either the first occurrence should be used or the response should be considered stale."
  it('uses the first occurrence of a duplicated directive (RFC 9111 §4.2.1)', () => {
    expect(directiveSeconds(parseCacheControl('max-age=60, max-age=10'), 'max-age')).toBe(60);
    expect(directiveSeconds(parseCacheControl('max-age=10, max-age=60'), 'max-age')).toBe(10);
    expect(directiveSeconds(parseCacheControl('s-maxage=0, s-maxage=3600'), 's-maxage')).toBe(0);
  });

  it('does not let a malformed duplicate erase a valid max-age (RFC 9111 §4.2.1)', () => {
    expect(directiveSeconds(parseCacheControl('max-age=10, max-age=abc'), 'max-age')).toBe(10);
  });

  it('keeps a malformed first occurrence, which freshness then reads as already stale', () => {
    const cc = parseCacheControl('max-age=abc, max-age=10');
    expect(cc.get('max-age')).toBe('abc');
    expect(directiveSeconds(cc, 'max-age')).toBeUndefined();
  });
});

describe('directiveSeconds', () => {
  it('reads a delta-seconds argument as a number of seconds (RFC 9111 §1.2.2)', () => {
    expect(directiveSeconds(parseCacheControl('max-age=0'), 'max-age')).toBe(0);
    expect(directiveSeconds(parseCacheControl('max-age=86400'), 'max-age')).toBe(86_400);
    expect(directiveSeconds(parseCacheControl('max-age=007'), 'max-age')).toBe(7);
  });

  it('is undefined for an absent directive or one without an argument', () => {
    expect(directiveSeconds(parseCacheControl('public'), 'max-age')).toBeUndefined();
    expect(directiveSeconds(parseCacheControl('max-age'), 'max-age')).toBeUndefined();
  });

  it('is undefined for an argument that is not delta-seconds (1*DIGIT)', () => {
    for (const value of ['-1', '1.5', '1e3', '0x10', 'abc', '', '+5', '5s']) {
      expect(directiveSeconds(parseCacheControl(`max-age=${value}`), 'max-age'), value).toBeUndefined();
    }
  });

  it('clamps values past 2^31 to 2147483648 (RFC 9111 §1.2.2)', () => {
    expect(directiveSeconds(parseCacheControl('max-age=2147483647'), 'max-age')).toBe(2_147_483_647);
    expect(directiveSeconds(parseCacheControl('max-age=2147483648'), 'max-age')).toBe(MAX_DELTA);
    expect(directiveSeconds(parseCacheControl('max-age=99999999999'), 'max-age')).toBe(MAX_DELTA);
    expect(directiveSeconds(parseCacheControl(`max-age=${'9'.repeat(400)}`), 'max-age')).toBe(MAX_DELTA);
  });
});

describe('directiveSeconds, quoted and single-quoted arguments', () => {
  it('reads a quoted delta-seconds as its value (RFC 9111 §5.2: "recipients ought to accept both forms"; cache-tests freshness-max-age-quoted)', () => {
    expect(directiveSeconds(parseCacheControl('max-age="3600"'), 'max-age')).toBe(3600);
    expect(directiveSeconds(parseCacheControl('s-maxage="0"'), 's-maxage')).toBe(0);
  });

  it('reads a single-quoted or half-quoted delta-seconds as invalid (cache-tests freshness-max-age-single-quoted)', () => {
    for (const value of ["'3600'", '"3600', '3600"', '" 3600"', '"3600 "', '"-1"', '""']) {
      expect(directiveSeconds(parseCacheControl(`max-age=${value}`), 'max-age'), value).toBeUndefined();
    }
  });
});

describe('directiveFields', () => {
  it('is undefined for an absent directive and true for an unqualified one', () => {
    expect(directiveFields(parseCacheControl('public'), 'no-cache')).toBeUndefined();
    expect(directiveFields(parseCacheControl('no-cache'), 'no-cache')).toBe(true);
  });

  it('lists the field names of a qualified directive, lowercased and without repeats (RFC 9111 §5.2.2.4, §5.2.2.7)', () => {
    expect(directiveFields(parseCacheControl('private="Set-Cookie, X-User,set-cookie"'), 'private')).toEqual([
      'set-cookie',
      'x-user',
    ]);
    expect(directiveFields(parseCacheControl('no-cache="x-a,, x-b ,"'), 'no-cache')).toEqual(['x-a', 'x-b']);
  });

  it('accepts the token form of a single field name (RFC 9111 §5.2.2.7: recipients accept it)', () => {
    expect(directiveFields(parseCacheControl('private=x-user'), 'private')).toEqual(['x-user']);
  });

  it('reads an argument that names no valid field as the unqualified directive', () => {
    for (const cc of ['private=""', 'private=","', 'private="a b"', 'private="a, (b)"', 'private=', 'private="x;y"']) {
      expect(directiveFields(parseCacheControl(cc), 'private'), cc).toBe(true);
    }
  });
});

describe('hasDirective', () => {
  it('is true for a present directive with or without an argument, false otherwise', () => {
    const cc = parseCacheControl('no-cache="set-cookie", public');
    expect(hasDirective(cc, 'no-cache')).toBe(true);
    expect(hasDirective(cc, 'public')).toBe(true);
    expect(hasDirective(cc, 'private')).toBe(false);
  });
});

// --- properties ---------------------------------------------------------------------------

const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const token = fc.string({ unit: fc.constantFrom(...TCHAR), minLength: 1, maxLength: 12 });
/** qdtext and quoted-pair material (RFC 9110 §5.6.4): HTAB, SP, VCHAR, obs-text. */
const quotedContent = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\t', ' ', '"', '\\', ','),
    fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 20,
});
const argument = fc.oneof(
  fc.constant<undefined>(undefined),
  token.map((value) => ({ value, written: value })),
  quotedContent.map((value) => ({ value, written: `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"` })),
);
const directiveList = fc.uniqueArray(fc.record({ name: token, argument }), {
  selector: (d) => d.name.toLowerCase(),
  maxLength: 8,
});
/** Any UTF-16 string, lone surrogates included. */
const anyCodeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });

describe('parseCacheControl properties', () => {
  it('never throws, whatever the field value (full Unicode, lone surrogates, controls)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          anyCodeUnits,
          fc.string({ unit: fc.constantFrom('"', '\\', ',', '=', ' ', 'a', '1') }),
        ),
        (value) => {
          const cc = parseCacheControl(value);
          for (const name of cc.keys()) directiveSeconds(cc, name);
        },
      ),
    );
  });

  it('only ever yields lowercase token names and non-negative whole seconds up to 2^31', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const cc = parseCacheControl(value);
        for (const name of cc.keys()) {
          expect(name).toMatch(/^[a-z0-9!#$%&'*+\-.^_`|~]+$/);
          const seconds = directiveSeconds(cc, name);
          if (seconds !== undefined) {
            expect(Number.isInteger(seconds)).toBe(true);
            expect(seconds).toBeGreaterThanOrEqual(0);
            expect(seconds).toBeLessThanOrEqual(MAX_DELTA);
          }
        }
      }),
    );
  });

  it('directiveFields never throws and yields only lowercase field-name tokens', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const fields = directiveFields(parseCacheControl(`no-cache=${value}`), 'no-cache');
        if (fields !== true && fields !== undefined) {
          expect(fields.length).toBeGreaterThan(0);
          for (const field of fields) expect(field).toMatch(/^[a-z0-9!#$%&'*+\-.^_`|~]+$/);
        }
      }),
    );
  });

  it('reads back every directive of a well-formed list, names lowercased and arguments unquoted', () => {
    fc.assert(
      fc.property(directiveList, fc.constantFrom(',', ', ', ' ,\t'), (directives, separator) => {
        const field = directives
          .map(({ name, argument: arg }) => (arg === undefined ? name : `${name}=${arg.written}`))
          .join(separator);
        const expected = Object.fromEntries(
          directives.map(({ name, argument: arg }) => [name.toLowerCase(), arg === undefined ? true : arg.value]),
        );
        expect(parsed(field)).toEqual(expected);
      }),
    );
  });
});
