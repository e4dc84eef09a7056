import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTargetLines, purgeBatches, targetCount } from '../../cli/purge-targets.ts';
import { MAX_PURGE_VALUES } from '../../shared/purge/purge-rules.ts';

describe('parseTargetLines', () => {
  it('reads paths, URLs, prefixes, tags and everything, skipping blanks and comments', () => {
    const text = [
      '# changed by the deploy',
      '/index.html',
      '',
      '  https://cdn.example/app.js  ',
      'prefix: /img/',
      'TAG:brand',
      'everything',
    ].join('\r\n');
    expect(parseTargetLines(text)).toEqual({
      urls: ['/index.html', 'https://cdn.example/app.js'],
      prefixes: ['/img/'],
      tags: ['brand'],
      everything: true,
      soft: false,
    });
  });

  it('refuses a line that is no target, with its number, rather than purge something else', () => {
    expect(parseTargetLines('/a.png\nimg/b.png\n')).toEqual({ error: expect.stringContaining('line 2') });
    expect(parseTargetLines('tag:\n')).toEqual({ error: 'line 1: "tag:" names nothing' });
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseTargetLines(text);
        expect(typeof parsed).toBe('object');
      }),
    );
  });
});

describe('purgeBatches', () => {
  it(`sends targets as requests of at most ${MAX_PURGE_VALUES} values, in order, everything with the first`, () => {
    const urls = Array.from({ length: 2500 }, (_, i) => `/file-${i}.html`);
    const batches = purgeBatches({ urls, prefixes: ['/img/'], tags: ['brand'], everything: true, soft: true });
    expect(batches).toHaveLength(3);
    expect(batches.map(targetCount)).toEqual([1000, 1000, 502]);
    expect(batches.flatMap((batch) => batch.urls)).toEqual(urls);
    expect(batches.at(-1)).toMatchObject({ prefixes: ['/img/'], tags: ['brand'] });
    expect(batches.map((batch) => batch.everything)).toEqual([true, false, false]);
    expect(batches.every((batch) => batch.soft)).toBe(true);
  });

  it('keeps a purge of everything alone as one request', () => {
    expect(purgeBatches({ urls: [], prefixes: [], tags: [], everything: true, soft: false })).toEqual([
      { urls: [], prefixes: [], tags: [], everything: true, soft: false },
    ]);
  });
});
