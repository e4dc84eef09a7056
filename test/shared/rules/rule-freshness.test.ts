// Whether a rule decided an answer's freshness (shared/rules/rule-freshness.ts): what Cache-Status says as
// `detail=rule:<name>`, recomputed from the rules and the answer's headers.

import { describe, expect, it } from 'vitest';
import { ruleDecidedFreshness, ruleDetail } from '../../../shared/rules/rule-freshness.ts';
import { parseRules } from '../../../shared/rules/rules-document.ts';
import { applyRules } from '../../../shared/rules/rules-match.ts';

const applied = (rule: Record<string, unknown>) =>
  applyRules(parseRules(JSON.stringify([{ name: 'r', ...rule }])), { host: 'h', path: '/a.html', method: 'GET' });
const decided = (rule: Record<string, unknown>, headers: Record<string, string>, status = 200) =>
  ruleDecidedFreshness(applied(rule), status, new Headers(headers));

describe('ruleDecidedFreshness', () => {
  it('names an edgeTtl’s rule where the answer gives no explicit freshness, and no rule where it does', () => {
    expect(decided({ edgeTtl: 60 }, {})).toBe('r');
    expect(decided({ edgeTtl: 60 }, { 'cache-control': 'public' })).toBe('r');
    expect(decided({ edgeTtl: 60 }, { 'cache-control': 'max-age=5' })).toBeUndefined();
    expect(decided({ edgeTtl: 60 }, { expires: 'Thu, 01 Jan 1970 00:00:00 GMT' })).toBeUndefined();
  });

  it('names an override’s rule whatever the answer says of its freshness', () => {
    expect(decided({ edgeTtl: 60, override: true }, { 'cache-control': 'max-age=0' })).toBe('r');
  });

  it('names a stale window’s rule only where the answer gives none of its own', () => {
    expect(decided({ staleWhileRevalidate: 5 }, { 'cache-control': 'max-age=5' })).toBe('r');
    expect(decided({ staleWhileRevalidate: 5 }, { 'cache-control': 'max-age=5, stale-while-revalidate=1' })).toBe(
      undefined,
    );
    expect(decided({ staleIfError: 5 }, { 'cache-control': 'max-age=5' })).toBe('r');
  });

  it('names no rule for what is never stored, for a 4xx/5xx, or without a freshness rule', () => {
    expect(decided({ edgeTtl: 60, override: true }, { 'cache-control': 'no-store' })).toBeUndefined();
    expect(decided({ edgeTtl: 60, override: true }, { 'cache-control': 'private' })).toBeUndefined();
    expect(decided({ edgeTtl: 60, override: true }, {}, 404)).toBeUndefined();
    expect(decided({ cacheKeyQuery: ['v'] }, {})).toBeUndefined();
  });

  it('writes the word Cache-Status carries', () => {
    expect(ruleDetail('assets')).toBe('rule:assets');
  });
});
