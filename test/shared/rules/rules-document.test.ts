// Reading RULES (shared/rules/rules-document.ts): a document that can work becomes typed rules; any other is refused
// with a ConfigError whose every problem names RULES, the rule and the field; nothing else is ever thrown.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../shared/http/errors.ts';
import { NO_RULES } from '../../../shared/rules/rules.ts';
import { parseRules, RULE_FIELDS } from '../../../shared/rules/rules-document.ts';

/** The problems parseRules reports for `document` (JSON-encoded), or [] when it takes it. */
function problems(document: unknown): readonly string[] {
  try {
    parseRules(JSON.stringify(document));
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

const PROBLEM = /^RULES rule \d+( \([A-Za-z0-9._-]+\))?: field "(?:[^"\\]|\\.)*" /;

describe('parseRules', () => {
  it('reads no rules from an unset, empty or empty-list RULES', () => {
    expect(parseRules(undefined)).toBe(NO_RULES);
    expect(parseRules('  ')).toBe(NO_RULES);
    expect(parseRules('[]')).toEqual({ list: [] });
  });

  it('reads every field of a rule into its typed form', () => {
    const rules = parseRules(
      JSON.stringify([
        {
          name: 'assets',
          match: {
            host: 'CDN.example.com',
            path: ['/assets/*', '/static/%7Euser/*'],
            extension: '.JS',
            method: undefined,
          },
          edgeTtl: 31_536_000,
          override: true,
          staleWhileRevalidate: 60,
          staleIfError: 86_400,
          cacheKeyQuery: ['v'],
        },
        { name: 'live', match: { path: '/live/*', method: ['get', 'HEAD'] }, bypass: true },
        { name: 'all-query', cacheKeyQuery: 'all' },
      ]),
    );
    expect(rules.list).toEqual([
      {
        name: 'assets',
        match: { hosts: ['cdn.example.com'], paths: ['/assets/*', '/static/~user/*'], extensions: ['js'] },
        freshness: { ttl: 31_536_000, override: true, staleWhileRevalidate: 60, staleIfError: 86_400 },
        cacheKeyQuery: ['v'],
      },
      { name: 'live', match: { paths: ['/live/*'], methods: ['GET', 'HEAD'] }, bypass: true },
      { name: 'all-query', match: {}, cacheKeyQuery: 'all' },
    ]);
  });

  it('refuses a document that is not a JSON array, naming RULES', () => {
    for (const value of ['{', '{"name":"a"}', '"rules"', '3', 'null']) {
      expect(() => parseRules(value), value).toThrow(ConfigError);
      expect(() => parseRules(value), value).toThrow(/^RULES must be a JSON array of rules/);
    }
  });

  it('names the rule (by place and name) and the field of each problem, all at once', () => {
    expect(
      problems([
        { name: 'ok', edgeTtl: 60 },
        { name: 'html', match: { extension: 'html' }, edgeTtl: -1, staleWhileRevalidate: 1.5 },
        { match: { path: 'assets/*' } },
        { name: 'ok', bypass: 'yes' },
      ]),
    ).toEqual([
      'RULES rule 2 (html): field "edgeTtl" must be whole seconds from 0 to 3153600000',
      'RULES rule 2 (html): field "staleWhileRevalidate" must be whole seconds from 0 to 3153600000',
      'RULES rule 3: field "name" must be 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or digit',
      'RULES rule 3: field "match.path" must start with `/`, got "assets/*"',
      'RULES rule 4 (ok): field "bypass" must be true or false',
    ]);
  });

  it('refuses a repeated name, an unknown field, and combinations that mean nothing', () => {
    expect(problems([{ name: 'a' }, { name: 'a' }])).toEqual(['RULES rule 2 (a): field "name" repeats rule name "a"']);
    expect(problems([{ name: 'a', ttl: 60 }])[0]).toMatch(/^RULES rule 1 \(a\): field "ttl" is not a rule field/);
    expect(problems([{ name: 'a', match: { paths: '/x' } }])[0]).toMatch(/field "match.paths" is not a rule field/);
    expect(problems([{ name: 'a', override: true }])).toEqual([
      'RULES rule 1 (a): field "override" needs edgeTtl: the TTL that overrides the origin’s',
    ]);
    expect(problems([{ name: 'a', bypass: true, edgeTtl: 60 }])[0]).toMatch(/field "bypass" stores nothing/);
    expect(problems([{ name: 'a', match: { method: 'GET' }, edgeTtl: 60 }])[0]).toMatch(/field "match.method" only/);
    expect(problems([{ name: 'a', cacheKeyQuery: [] }])[0]).toMatch(
      /field "cacheKeyQuery" must be "all" or a non-empty list/,
    );
  });

  it('throws nothing but ConfigError on any string', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        try {
          parseRules(value);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('throws nothing but ConfigError on any JSON, and every problem in it names RULES, the rule and the field', () => {
    const field = fc.constantFrom(...RULE_FIELDS, 'other');
    const rule = fc.dictionary(field, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
    const documents = fc.oneof(
      fc.array(fc.oneof(rule, fc.jsonValue({ maxDepth: 2 })), { maxLength: 4 }),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(documents, (document) => {
        let caught: unknown;
        try {
          parseRules(JSON.stringify(document));
        } catch (error) {
          caught = error;
        }
        if (caught === undefined) return;
        expect(caught).toBeInstanceOf(ConfigError);
        if (!Array.isArray(document)) return;
        for (const problem of (caught as ConfigError).problems) expect(problem).toMatch(PROBLEM);
      }),
      { numRuns: 500 },
    );
  });

  it('takes any rule of valid fields, and reads it back the same way every time', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/);
    const seconds = fc.integer({ min: 0, max: 3_153_600_000 });
    const path = fc.stringMatching(/^\/[a-z0-9/._-]{0,12}\*?$/);
    const rule = fc.record(
      {
        name,
        match: fc.record(
          { path: fc.array(path, { minLength: 1, maxLength: 3 }), extension: fc.constantFrom('html', 'js') },
          { requiredKeys: [] },
        ),
        edgeTtl: seconds,
        staleWhileRevalidate: seconds,
        staleIfError: seconds,
      },
      { requiredKeys: ['name'] },
    );
    fc.assert(
      fc.property(fc.uniqueArray(rule, { selector: (r) => r.name, maxLength: 5 }), (rules) => {
        const text = JSON.stringify(rules);
        const read = parseRules(text);
        expect(read.list.map((r) => r.name)).toEqual(rules.map((r) => r.name));
        expect(parseRules(text)).toEqual(read);
      }),
    );
  });
});
