import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_WARM_PREFIXES,
  MAX_WARM_URLS,
  MAX_WARM_VALUE_LENGTH,
  parseWarmBody,
  type WarmRequest,
} from '../../../shared/warm/warm-request.ts';

const reasonOf = (body: unknown): string => {
  const parsed = parseWarmBody(typeof body === 'string' ? body : JSON.stringify(body));
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(body)} to be refused`);
  return parsed.reason;
};

const accepted = (body: unknown): WarmRequest => {
  const parsed = parseWarmBody(JSON.stringify(body));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.request;
};

describe('parseWarmBody', () => {
  it('accepts URLs, a playlist prefix and a listed prefix, warming the shield from the start by default', () => {
    expect(
      accepted({
        urls: ['/a.png', 'https://cdn.example/b.png'],
        prefixes: [
          { prefix: '/video/ep1/', playlist: 'index.m3u8' },
          { prefix: '/video/ep2/', playlist: '/video/ep2/manifest.MPD?v=2' },
          { prefix: '/img/', names: ['a.png', 'b/c.png'] },
        ],
      }),
    ).toEqual({
      urls: ['/a.png', 'https://cdn.example/b.png'],
      prefixes: [
        { prefix: '/video/ep1/', playlist: 'index.m3u8', kind: 'hls' },
        { prefix: '/video/ep2/', playlist: '/video/ep2/manifest.MPD?v=2', kind: 'dash' },
        { prefix: '/img/', names: ['a.png', 'b/c.png'] },
      ],
      tier: 'shield',
      from: 0,
    });
  });

  it('takes the tier and where the call starts', () => {
    expect(accepted({ urls: ['/a'], tier: 'both', from: 250 })).toMatchObject({ tier: 'both', from: 250 });
  });

  it('refuses what is not a JSON object, saying what arrived', () => {
    expect(reasonOf('urls=/a')).toMatch(/not JSON \("urls=\/a"\)/);
    expect(reasonOf('["/a"]')).toMatch(/expected a JSON object with urls, prefixes, tier, from, got an array/);
    expect(reasonOf('null')).toMatch(/got null/);
    expect(reasonOf({ urls: ['/a'], purge: true })).toMatch(/only the fields urls, prefixes, tier, from, got "purge"/);
  });

  it('refuses a request that names nothing', () => {
    expect(reasonOf({})).toMatch(/nothing to warm/);
    expect(reasonOf({ urls: [], prefixes: [] })).toMatch(/nothing to warm/);
  });

  it('refuses values of the wrong shape', () => {
    expect(reasonOf({ urls: '/a' })).toMatch(/"urls" to be an array of strings/);
    expect(reasonOf({ urls: [''] })).toMatch(/non-empty/);
    expect(reasonOf({ urls: [`/${'a'.repeat(MAX_WARM_VALUE_LENGTH)}`] })).toMatch(/at most 2048 characters/);
    expect(reasonOf({ urls: ['/a'], tier: 'edge' })).toMatch(/"tier" to be "shield" or "both", got "\\"edge\\""/);
    for (const from of [-1, 1.5, '3', MAX_WARM_URLS + 1]) expect(reasonOf({ urls: ['/a'], from })).toMatch(/"from"/);
    expect(reasonOf({ prefixes: {} })).toMatch(/"prefixes" to be an array, got "{}"/);
  });

  it('refuses a prefix that comes with neither a playlist nor names, or with both: the bucket is never listed', () => {
    expect(reasonOf({ prefixes: [{ prefix: '/video/' }] })).toMatch(/"playlist" or with "names".*never listed/);
    expect(reasonOf({ prefixes: [{ prefix: '/video/', playlist: 'a.m3u8', names: ['b'] }] })).toMatch(/one of them/);
    expect(reasonOf({ prefixes: [{ prefix: 'video/', names: ['a'] }] })).toMatch(/starting with "\/"/);
    expect(reasonOf({ prefixes: [{ prefix: '/v/', names: ['a'], extra: 1 }] })).toMatch(/only the fields/);
  });

  it('refuses a playlist that is neither HLS nor DASH by its name', () => {
    for (const playlist of ['index.txt', '/v/m3u8', 'https://cdn.example/a.mpd/x', 'a.m3u8.bak'])
      expect(reasonOf({ prefixes: [{ prefix: '/v/', playlist }] }), playlist).toMatch(/HLS \(\.m3u8\) or DASH/);
  });

  it('refuses names that are not relative to their prefix', () => {
    for (const name of ['/img/a.png', 'https://cdn.example/a.png', 'data:text/plain,a'])
      expect(reasonOf({ prefixes: [{ prefix: '/img/', names: [name] }] }), name).toMatch(/relative to their prefix/);
  });

  it('bounds the values a request names', () => {
    const many = Array.from({ length: MAX_WARM_URLS + 1 }, (_, i) => `/${i}`);
    expect(reasonOf({ urls: many })).toMatch(/at most 10000 URLs and names in one request, got 10001/);
    const split = {
      urls: many.slice(0, 5000),
      prefixes: [{ prefix: '/p/', names: many.slice(5000).map((n) => n.slice(1)) }],
    };
    expect(reasonOf(split)).toMatch(/got 10001/);
    const prefixes = Array.from({ length: MAX_WARM_PREFIXES + 1 }, () => ({ prefix: '/p/', names: ['a'] }));
    expect(reasonOf({ prefixes })).toMatch(/at most 16 prefixes/);
  });

  it('never throws, and either accepts a request naming something or says why not', () => {
    const value = fc.oneof(
      fc.string(),
      fc.json(),
      fc.record(
        {
          urls: fc.array(fc.oneof(fc.string(), fc.webUrl(), fc.integer())),
          prefixes: fc.array(
            fc.record(
              { prefix: fc.string(), playlist: fc.string(), names: fc.array(fc.string()) },
              { requiredKeys: [] },
            ),
          ),
          tier: fc.oneof(fc.constantFrom('shield', 'both'), fc.string()),
          from: fc.oneof(fc.nat(), fc.integer(), fc.double()),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(value, (body) => {
        const parsed = parseWarmBody(typeof body === 'string' ? body : JSON.stringify(body));
        if (!parsed.ok) return parsed.reason.startsWith('expected');
        const { request } = parsed;
        const named = request.urls.length + request.prefixes.length;
        return named > 0 && named <= MAX_WARM_URLS + MAX_WARM_PREFIXES && request.from >= 0;
      }),
    );
  });

  it('accepts every well-formed request it is given, values trimmed and kept in order', () => {
    const path = fc.stringMatching(/^\/[a-z0-9/._-]{0,40}$/);
    const name = fc.stringMatching(/^[a-z0-9][a-z0-9/._-]{0,20}$/);
    fc.assert(
      fc.property(
        fc.array(path, { maxLength: 20 }),
        fc.array(fc.record({ prefix: path, names: fc.array(name, { minLength: 1, maxLength: 5 }) }), { maxLength: 4 }),
        fc.constantFrom('shield' as const, 'both' as const),
        fc.nat({ max: MAX_WARM_URLS }),
        (urls, prefixes, tier, from) => {
          fc.pre(urls.length + prefixes.length > 0);
          const request = accepted({ urls: urls.map((url) => ` ${url} `), prefixes, tier, from });
          expect(request).toEqual({ urls, prefixes, tier, from });
        },
      ),
    );
  });
});
