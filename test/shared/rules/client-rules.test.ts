import { describe, expect, it } from 'vitest';
import { clientRules, rulesEditClients } from '../../../shared/rules/client-rules.ts';
import { parseRules } from '../../../shared/rules/rules-document.ts';
import { applyRules } from '../../../shared/rules/rules-match.ts';

const rules = (document: unknown[]) => parseRules(JSON.stringify(document));

describe('rulesEditClients', () => {
  it('is false with no rules, or rules that only decide what the tiers store', () => {
    expect(rulesEditClients(rules([]))).toBe(false);
    expect(rulesEditClients(rules([{ name: 'year', match: { path: '/assets/*' }, edgeTtl: 31536000 }]))).toBe(false);
    expect(rulesEditClients(rules([{ name: 'live', match: { path: '/live/*' }, bypass: true }]))).toBe(false);
    expect(rulesEditClients(rules([{ name: 'none', headers: {} }]))).toBe(false);
  });

  it('is true as soon as one rule changes a client’s answer', () => {
    for (const action of [
      { browserCacheControl: 'no-cache' },
      { headers: { remove: ['server'] } },
      { redirect: { status: 301, location: '/new' } },
      { spaFallback: '/app/index.html' },
    ]) {
      expect(
        rulesEditClients(
          rules([
            { name: 'ttl', edgeTtl: 60 },
            { name: 'one', ...action },
          ]),
        ),
        JSON.stringify(action),
      ).toBe(true);
    }
  });
});

describe('clientRules', () => {
  const list = rules([
    {
      name: 'assets',
      match: { path: '/assets/*' },
      edgeTtl: 31536000,
      browserCacheControl: 'public, max-age=31536000',
    },
    { name: 'security', headers: { set: { 'x-frame-options': 'DENY' } } },
    { name: 'old', match: { path: '/old/*' }, redirect: { status: 308, location: '/new/', preservePathSuffix: true } },
    { name: 'app', match: { path: '/app/*' }, spaFallback: '/app/index.html' },
  ]);
  const on = (path: string) => clientRules(applyRules(list, { host: 'cdn.example', path, method: 'GET' }));

  it('is undefined when the rules that match change nothing for the client', () => {
    const storing = rules([{ name: 'year', match: { path: '/assets/*' }, edgeTtl: 31536000 }]);
    expect(clientRules(applyRules(storing, { host: 'cdn.example', path: '/assets/a.js', method: 'GET' }))).toBe(
      undefined,
    );
  });

  it('gathers the client-side fields of every matching rule', () => {
    expect(on('/assets/a.js')).toEqual({
      browserCacheControl: 'public, max-age=31536000',
      headers: { set: [['x-frame-options', 'DENY']], add: [], remove: [] },
      editsHeaders: true,
      redirect: undefined,
      spaFallback: undefined,
    });
    expect(on('/old/a/b')?.redirect).toEqual({
      status: 308,
      location: '/new/',
      preservePathSuffix: true,
      preserveQuery: false,
      rule: 'old',
      suffix: 'a/b',
    });
    expect(on('/app/settings')?.spaFallback).toEqual({ rule: 'app', path: '/app/index.html' });
  });
});
