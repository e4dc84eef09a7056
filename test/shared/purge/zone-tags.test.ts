import { describe, expect, it } from 'vitest';
import { variantKey } from '../../../shared/http/vary.ts';
import { folderTag, MAX_TAG_HEADER_LENGTH, MAX_TAGS, urlTag } from '../../../shared/purge/workers-cache-purge.ts';
import { hostTag, zoneCacheTags } from '../../../shared/purge/zone-tags.ts';
import { sliceKey } from '../../../shared/slices/slice-plan.ts';

describe('zoneCacheTags', () => {
  it("tags an entry with its path's tag, its folders', its host's and the object's own (lower case)", () => {
    const tags = zoneCacheTags('https://cdn.example/img/a/logo.png?v=1', ['Brand', 'v2']);
    expect(tags).toEqual(
      expect.arrayContaining([
        urlTag('/img/a/logo.png?v=1'),
        folderTag('/'),
        folderTag('/img/'),
        folderTag('/img/a/'),
        hostTag('cdn.example'),
        'brand',
        'v2',
      ]),
    );
    expect(new Set(tags).size).toBe(tags.length);
  });

  it('tags a variant and a slice as the object they belong to', () => {
    const object = 'https://cdn.example/docs/page.html';
    const variant = variantKey(object, ['accept-language'], new Headers({ 'accept-language': 'de' }));
    const slice = sliceKey(object, { etag: '"abc"', size: 100 }, 10, 3);
    for (const key of [variant ?? '', slice]) {
      const tags = zoneCacheTags(key, ['site']);
      expect(tags, key).toContain(urlTag('/docs/page.html'));
      expect(tags, key).toContain(folderTag('/docs/'));
      expect(tags, key).toContain(hostTag('cdn.example'));
      expect(tags, key).toContain('site');
    }
  });

  it('keeps within the header limits: object tags that cannot be carried are left out, ours stay', () => {
    const many = Array.from({ length: MAX_TAGS + 5 }, (_, index) => `t${index}`);
    const tags = zoneCacheTags('https://cdn.example/a/b.txt', many);
    expect(tags).toContain(urlTag('/a/b.txt'));
    expect(tags).toContain(hostTag('cdn.example'));
    expect(tags).not.toContain('t0');
    const long = zoneCacheTags('https://cdn.example/a.txt', ['x'.repeat(2000)]);
    expect(long).toEqual(expect.arrayContaining([urlTag('/a.txt'), hostTag('cdn.example')]));
    expect(long.join(',').length).toBeLessThanOrEqual(MAX_TAG_HEADER_LENGTH);
    const spaced = zoneCacheTags('https://cdn.example/a.txt', ['has space']);
    expect(spaced).not.toContain('has space');
  });

  it('bounds a deep path by MAX_FOLDER_DEPTH folders, within the header length', () => {
    const deep = `https://cdn.example/${'d/'.repeat(100)}file`;
    const tags = zoneCacheTags(deep, []);
    expect(tags.length).toBeLessThanOrEqual(34);
    expect(tags.join(',').length).toBeLessThanOrEqual(MAX_TAG_HEADER_LENGTH);
  });

  it('tags nothing for a key that is no URL', () => {
    expect(zoneCacheTags('not a url', ['a'])).toEqual([]);
  });
});
