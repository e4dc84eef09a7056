import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPurged, type PurgeRecord } from '../../../shared/purge/purge-rules.ts';
import {
  folderTag,
  MAX_FOLDER_DEPTH,
  urlTag,
  workersCachePurge,
  workersCacheTags,
} from '../../../shared/purge/workers-cache-purge.ts';

/** A canonical path and query, as the tiers key objects: segments of path characters, `/`, an optional query. */
const segment = fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,6}$/);
const path = fc
  .tuple(
    fc.array(segment, { minLength: 1, maxLength: MAX_FOLDER_DEPTH + 4 }),
    fc.option(fc.stringMatching(/^[a-z0-9=&/%-]{0,8}$/), { nil: undefined }),
  )
  .map(([segments, query]) => `/${segments.join('/')}${query === undefined ? '' : `?${query}`}`);
const tag = fc.stringMatching(/^[a-z0-9._-]{1,12}$/);
const AT = 1_000;

/** Whether the Workers Cache purge for `records` reaches an answer for `objectPath` tagged `objectTags`. */
function reaches(records: PurgeRecord[], objectPath: string, objectTags: string[]): boolean {
  const purge = workersCachePurge(records);
  const tags = workersCacheTags(objectPath, objectTags) ?? [];
  return purge?.purgeEverything === true || (purge?.tags ?? []).some((name) => tags.includes(name));
}

describe('workersCachePurge: every purge the tiers apply reaches the Workers Cache copy', () => {
  it('reaches every object a prefix purge matches, at any depth (property)', () => {
    fc.assert(
      fc.property(path, fc.nat(), (objectPath, cut) => {
        const prefix = objectPath.slice(0, 1 + (cut % objectPath.length));
        const record: PurgeRecord = { kind: 'prefix', value: prefix, at: AT };
        // What the tiers purge (purge.ts isPurged), Workers Cache purges too.
        if (isPurged({ originAt: 0, path: objectPath, tags: [] }, [record]))
          expect(reaches([record], objectPath, [])).toBe(true);
      }),
    );
  });

  it('reaches the object a URL purge names, and a tagged object by any of its tags, whatever their case', () => {
    fc.assert(
      fc.property(path, fc.array(tag, { maxLength: 5 }), (objectPath, tags) => {
        expect(reaches([{ kind: 'url', value: objectPath, at: AT }], objectPath, [])).toBe(true);
        for (const name of tags)
          expect(
            reaches(
              [{ kind: 'tag', value: name, at: AT }],
              objectPath,
              tags.map((t) => t.toUpperCase()),
            ),
          ).toBe(true);
      }),
    );
  });

  it('purges everything for a purge of everything', () => {
    expect(
      workersCachePurge([
        { kind: 'url', value: '/a', at: AT },
        { kind: 'everything', value: '', at: AT },
      ]),
    ).toEqual({ purgeEverything: true });
  });

  it('names one tag a record, and nothing for no record', () => {
    expect(
      workersCachePurge([
        { kind: 'url', value: '/a/b.txt', at: AT },
        { kind: 'prefix', value: '/a/', at: AT },
        { kind: 'tag', value: 'News', at: AT },
      ]),
    ).toEqual({ tags: [urlTag('/a/b.txt'), folderTag('/a/'), 'news'] });
    expect(workersCachePurge([])).toBeUndefined();
  });

  it('purges a prefix ending inside a name by its folder: more than asked, never less', () => {
    expect(workersCachePurge([{ kind: 'prefix', value: '/img/ca', at: AT }])).toEqual({ tags: [folderTag('/img/')] });
    // A `/` in the query is no folder.
    expect(workersCachePurge([{ kind: 'prefix', value: '/img/cat.jpg?v=/2', at: AT }])).toEqual({
      tags: [folderTag('/img/')],
    });
    expect(reaches([{ kind: 'prefix', value: '/img/ca', at: AT }], '/img/dog.jpg', [])).toBe(true);
    expect(reaches([{ kind: 'prefix', value: '/img/ca', at: AT }], '/video/cat.mp4', [])).toBe(false);
  });
});

describe('workersCacheTags', () => {
  it('tags an answer with its object tags (lower case), its path and each folder it is in, from the root', () => {
    expect(workersCacheTags('/a/b/c.mp4?x=1', ['Album-7'])).toEqual([
      'album-7',
      urlTag('/a/b/c.mp4?x=1'),
      folderTag('/'),
      folderTag('/a/'),
      folderTag('/a/b/'),
    ]);
  });

  it("names every tag in printable ASCII, without spaces or commas, within Cloudflare's limits (property)", () => {
    fc.assert(
      fc.property(path, (objectPath) => {
        const tags = workersCacheTags(objectPath, []) ?? [];
        expect(tags.length).toBeLessThanOrEqual(MAX_FOLDER_DEPTH + 1);
        for (const name of tags) expect(name).toMatch(/^[\x21-\x2b\x2d-\x7e]{1,1024}$/);
      }),
    );
  });

  it('does not tag (so Workers Cache keeps no copy of) an answer whose object tag Cloudflare would drop', () => {
    expect(workersCacheTags('/a.txt', ['café'])).toBeUndefined();
    expect(workersCacheTags('/a.txt', ['x'.repeat(1025)])).toBeUndefined();
    expect(
      workersCacheTags(
        '/a.txt',
        Array.from({ length: 1000 }, (_, i) => `t${i}`),
      ),
    ).toBeUndefined();
  });
});
