import { describe, expect, it } from 'vitest';
import { parseConfig, type RawConfig } from '../../shared/config/config.ts';
import { edgeClientRules, redirectAnswer, withClientRules } from '../../worker/edge-rules.ts';

const S3: RawConfig = { S3_BUCKET: 'assets', S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'SECRET-KEY-VALUE' };
const configWith = (rules: unknown[], extra: RawConfig = {}) =>
  parseConfig({ ...S3, ...extra, RULES: JSON.stringify(rules) });
const get = (url: string, method = 'GET') => new Request(url, { method });

describe('edgeClientRules', () => {
  it('is undefined with no RULES, and with rules that only decide what the tiers store', () => {
    expect(edgeClientRules(get('https://cdn.example/a.js'), parseConfig(S3))).toBeUndefined();
    const storing = configWith([{ name: 'year', match: { path: '/assets/*' }, edgeTtl: 31536000 }]);
    expect(edgeClientRules(get('https://cdn.example/assets/a.js'), storing)).toBeUndefined();
  });

  it('remembers what it worked out per method and raw URL: the same answer, not a new one', () => {
    const config = configWith([{ name: 'security', headers: { set: { 'x-frame-options': 'DENY' } } }]);
    const first = edgeClientRules(get('https://cdn.example/a.js'), config);
    expect(first?.headers.set).toEqual([['x-frame-options', 'DENY']]);
    expect(edgeClientRules(get('https://cdn.example/a.js'), config)).toBe(first);
    expect(edgeClientRules(get('https://cdn.example/a.js', 'HEAD'), config)).toEqual(first);
  });

  it('gives a rule’s method its own answer: a GET-only rule leaves HEAD alone', () => {
    const config = configWith([{ name: 'get', match: { method: 'GET' }, headers: { set: { 'x-get': '1' } } }]);
    expect(edgeClientRules(get('https://cdn.example/b.js'), config)?.headers.set).toEqual([['x-get', '1']]);
    expect(edgeClientRules(get('https://cdn.example/b.js', 'HEAD'), config)).toBeUndefined();
  });

  it('never applies to the tiers’ own paths, however spelled', () => {
    const config = configWith([{ name: 'all', headers: { set: { 'x-frame-options': 'DENY' } } }]);
    for (const path of ['/__tiercache/health', '/%5f_tiercache/stats', '/x/../__tiercache/purge']) {
      expect(edgeClientRules(get(`https://cdn.example${path}`), config), path).toBeUndefined();
    }
  });

  it('matches the path the edge keys: with INDEX_DOCUMENT, /docs/ is /docs/index.html', () => {
    const config = configWith([{ name: 'html', match: { extension: 'html' }, browserCacheControl: 'no-cache' }], {
      INDEX_DOCUMENT: 'index.html',
    });
    expect(edgeClientRules(get('https://cdn.example/docs/'), config)?.browserCacheControl).toBe('no-cache');
  });

  it('matches a path that names no object by its spelling, so a redirect still answers it', () => {
    const config = configWith([{ name: 'root', match: { path: '/' }, redirect: { status: 302, location: '/home' } }]);
    expect(edgeClientRules(get('https://cdn.example/'), config)?.redirect?.location).toBe('/home');
  });
});

describe('redirectAnswer', () => {
  const redirect = {
    status: 301 as const,
    location: '/docs/',
    preservePathSuffix: true,
    preserveQuery: true,
    rule: 'old-docs',
    suffix: 'a.html',
  };

  it('says where, in a line of text, with the edge’s member naming the rule', async () => {
    const answer = redirectAnswer(get('https://cdn.example/old/a.html?x=1'), redirect, Date.now());
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe('/docs/a.html?x=1');
    expect(answer.headers.get('cache-status')).toBe('tiercache-edge; detail=rule:old-docs');
    expect(answer.headers.get('cache-control')).toBeNull();
    const body = await answer.text();
    expect(body).toBe('301 Moved Permanently: /docs/a.html?x=1\n');
    expect(answer.headers.get('content-length')).toBe(String(body.length));
  });

  it('sends no body to HEAD', async () => {
    const answer = redirectAnswer(get('https://cdn.example/old/a.html', 'HEAD'), redirect, Date.now());
    expect(answer.status).toBe(301);
    expect(await answer.text()).toBe('');
  });
});

describe('withClientRules', () => {
  const client = {
    browserCacheControl: 'public, max-age=31536000, immutable',
    headers: { set: [['x-frame-options', 'DENY'] as const], add: [], remove: ['server'] },
    editsHeaders: true,
    redirect: undefined,
    spaFallback: undefined,
  };

  it('edits an answer the edge built in place: no copy of it or of its body', () => {
    const answer = new Response('body', { headers: { server: 'AmazonS3', 'cache-control': 'max-age=600' } });
    const edited = withClientRules(answer, client, 'GET');
    expect(edited).toBe(answer);
    expect(edited.headers.get('cache-control')).toBe(client.browserCacheControl);
    expect(edited.headers.get('x-frame-options')).toBe('DENY');
    expect(edited.headers.has('server')).toBe(false);
  });

  it('copies an answer whose headers are immutable around its body as it is', async () => {
    // Response.redirect's headers are immutable, as a fetch's are.
    const answer = Response.redirect('https://cdn.example/elsewhere', 302);
    const edited = withClientRules(answer, client, 'GET');
    expect(edited).not.toBe(answer);
    expect(edited.status).toBe(302);
    expect(edited.headers.get('location')).toBe('https://cdn.example/elsewhere');
    expect(edited.headers.get('x-frame-options')).toBe('DENY');
    // A redirect keeps its own Cache-Control.
    expect(edited.headers.has('cache-control')).toBe(false);
  });
});
