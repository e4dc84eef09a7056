import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  asRecord,
  entryTags,
  isPurged,
  keptList,
  lastPurge,
  MAX_PURGE_VALUES,
  MAX_RECORDS,
  matches,
  newestMatching,
  type PurgeList,
  type PurgeRecord,
  parsePurgeBody,
  purgedBy,
  purgeWatch,
  RECORD_LIFETIME_MS,
} from '../../../shared/purge/purge-rules.ts';

/** A list that has dropped nothing. */
const listOf = (records: PurgeRecord[]): PurgeList => ({ records, vouchedSince: -Infinity });

const reasonOf = (text: string): string => {
  const parsed = parsePurgeBody(text);
  if (parsed.ok) throw new Error(`expected ${text} to be refused`);
  return parsed.reason;
};

describe('parsePurgeBody', () => {
  it('accepts urls, prefixes, tags and everything in any combination', () => {
    expect(
      parsePurgeBody(
        '{"urls": ["/a.txt", "https://cdn.example/b.txt"], "prefixes": ["/img/"], "tags": ["Blog"], "everything": true}',
      ),
    ).toEqual({
      ok: true,
      request: {
        urls: ['/a.txt', 'https://cdn.example/b.txt'],
        prefixes: ['/img/'],
        tags: ['Blog'],
        everything: true,
        soft: false,
      },
    });
    expect(parsePurgeBody('{"tags": ["t"]}')).toEqual({
      ok: true,
      request: { urls: [], prefixes: [], tags: ['t'], everything: false, soft: false },
    });
  });

  it('refuses text that is not JSON, saying what arrived', () => {
    expect(reasonOf('urls=/a')).toMatch(/^expected a JSON object.*not JSON \("urls=\/a"\)/);
  });

  it('refuses JSON that is not an object', () => {
    expect(reasonOf('["/a"]')).toMatch(/got an array$/);
    expect(reasonOf('null')).toMatch(/got null$/);
    expect(reasonOf('3')).toMatch(/got number$/);
  });

  it('refuses a request that purges nothing', () => {
    expect(reasonOf('{}')).toMatch(/at least one/);
    expect(reasonOf('{"urls": [], "everything": false}')).toMatch(/at least one/);
  });

  it('refuses unknown fields, naming the field', () => {
    expect(reasonOf('{"url": ["/a"]}')).toMatch(
      /expected only the fields urls, prefixes, tags, everything, soft, got "url"/,
    );
  });

  it('refuses lists that are not lists of non-empty strings', () => {
    expect(reasonOf('{"urls": "/a"}')).toMatch(/"urls" to be an array of strings, got "\\"\/a\\""/);
    expect(reasonOf('{"tags": [1]}')).toMatch(/"tags" to hold non-empty strings, got "1"/);
    expect(reasonOf('{"tags": ["  "]}')).toMatch(/non-empty/);
    expect(reasonOf(`{"tags": ["${'x'.repeat(513)}"]}`)).toMatch(/at most 512 characters, got 513/);
  });

  it('refuses an everything that is not a boolean', () => {
    expect(reasonOf('{"everything": "yes"}')).toMatch(/"everything" to be true or false/);
  });

  it('refuses a prefix that is not a path', () => {
    expect(reasonOf('{"prefixes": ["img/"]}')).toMatch(/starting with "\/", got "img\/"/);
  });

  it(`refuses more than ${MAX_PURGE_VALUES} values at once`, () => {
    const urls = Array.from({ length: MAX_PURGE_VALUES + 1 }, (_, i) => `/${i}`);
    expect(reasonOf(JSON.stringify({ urls }))).toMatch(
      new RegExp(`at most ${MAX_PURGE_VALUES} .* got ${MAX_PURGE_VALUES + 1}`),
    );
  });

  it('never throws, whatever arrives', () => {
    const anyJson = fc.json().map((text) => text);
    const shaped = fc
      .record(
        { urls: fc.anything(), prefixes: fc.anything(), tags: fc.anything(), everything: fc.anything() },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v) ?? '');
    fc.assert(
      fc.property(fc.oneof(fc.string(), anyJson, shaped), (text) => {
        const parsed = parsePurgeBody(text);
        expect(typeof parsed.ok).toBe('boolean');
        if (!parsed.ok) expect(parsed.reason).toMatch(/^expected /);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('isPurged', () => {
  const entry = { originAt: 1000, path: '/docs/a.html', tags: ['blog', 'docs'] };
  const record = (kind: PurgeRecord['kind'], value: string, at = 2000): PurgeRecord => ({ kind, value, at });

  it('purges an entry stored before a purge of its URL, prefix, tag, or everything', () => {
    expect(isPurged(entry, [record('url', '/docs/a.html')])).toBe(true);
    expect(isPurged(entry, [record('prefix', '/docs/')])).toBe(true);
    expect(isPurged(entry, [record('tag', 'docs')])).toBe(true);
    expect(isPurged(entry, [record('everything', '')])).toBe(true);
  });

  it('purges an entry stored in the same millisecond as the purge', () => {
    expect(isPurged(entry, [record('url', '/docs/a.html', 1000)])).toBe(true);
  });

  it('keeps an entry stored after the purge', () => {
    expect(isPurged(entry, [record('everything', '', 999)])).toBe(false);
  });

  it('keeps an entry that no record matches', () => {
    expect(
      isPurged(entry, [
        record('url', '/docs/a.htm'),
        record('url', '/docs/a.html?x=1'),
        record('prefix', '/img/'),
        record('tag', 'news'),
      ]),
    ).toBe(false);
    expect(isPurged(entry, [])).toBe(false);
  });
});

describe('entryTags', () => {
  it('reads Cache-Tag as comma-separated tags, compared without regard to case', () => {
    expect(entryTags(new Headers({ 'cache-tag': ' Blog, docs ,,v2' }))).toEqual(['blog', 'docs', 'v2']);
    expect(entryTags(new Headers())).toEqual([]);
  });
});

describe('purgedBy', () => {
  it('checks a stored entry by its timing, the path given and its Cache-Tag', () => {
    const check = purgedBy(listOf([{ kind: 'tag', value: 'blog', at: 2000 }]), '/a');
    expect(check({ meta: { storedAt: 1000 }, headers: new Headers({ 'cache-tag': 'BLOG' }) })).toBe(true);
    expect(check({ meta: { storedAt: 3000 }, headers: new Headers({ 'cache-tag': 'blog' }) })).toBe(false);
    expect(check({ meta: { storedAt: 1000 }, headers: new Headers() })).toBe(false);
  });
});

describe('purge watermarks (an edge telling the shield of a purge it has not read yet)', () => {
  const records: PurgeRecord[] = [
    { kind: 'prefix', value: '/img/', at: 100 },
    { kind: 'url', value: '/img/a.png', at: 300 },
    { kind: 'tag', value: 'blog', at: 500 },
    { kind: 'url', value: '/other.css', at: 700 },
  ];
  const entry = (storedAt: number, tags = '') => ({
    meta: { storedAt },
    headers: new Headers(tags ? { 'cache-tag': tags } : {}),
  });

  it('finds the newest purge matching a path, and by tag only for a tagged object', () => {
    expect(lastPurge(records, '/img/a.png')).toBe(300);
    expect(lastPurge(records, '/img/b.png')).toBe(100);
    expect(lastPurge(records, '/img/b.png', ['blog'])).toBe(500);
    expect(lastPurge(records, '/docs/x.html')).toBeUndefined();
    expect(lastPurge([], '/img/a.png')).toBeUndefined();
  });

  it('starts from the path purges, and raises the watermark to a tag purge it applied', () => {
    const watch = purgeWatch(listOf(records), '/img/b.png');
    expect(watch.watermark()).toBe(100);
    expect(watch.purged(entry(600, 'blog'))).toBe(false);
    expect(watch.watermark()).toBe(100);
    expect(watch.purged(entry(400, 'Blog, news'))).toBe(true);
    expect(watch.watermark()).toBe(500);
  });

  it('purges, at the shield, what was stored at or before the watermark, and nothing newer', () => {
    expect(purgedBy(listOf([]), '/a', 1000)(entry(1000))).toBe(true);
    expect(purgedBy(listOf([]), '/a', 1000)(entry(1001))).toBe(false);
    expect(purgedBy(listOf(records), '/img/a.png', undefined)(entry(200))).toBe(true);
    expect(purgedBy(listOf(records), '/img/a.png', 50)(entry(301))).toBe(false);
  });

  it('agrees with isPurged on every entry, for any records', () => {
    const record = fc.record({
      kind: fc.constantFrom('url' as const, 'prefix' as const, 'tag' as const, 'everything' as const),
      value: fc.constantFrom('/a', '/a/b', '/b', 'blog', ''),
      at: fc.integer({ min: 0, max: 1000 }),
    });
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 8 }),
        fc.constantFrom('/a', '/a/b', '/b'),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        (list, path, storedAt, tagged) => {
          const stored = entry(storedAt, tagged ? 'blog' : '');
          const watch = purgeWatch(listOf(list), path);
          const purged = watch.purged(stored);
          expect(purged).toBe(isPurged({ originAt: storedAt, path, tags: tagged ? ['blog'] : [] }, list));
          // What the edge tells the shield purges at least what the edge purged.
          if (purged) expect(purgedBy(listOf([]), path, watch.watermark())(stored)).toBe(true);
        },
      ),
    );
  });
});

describe('keptList', () => {
  const now = 100 * RECORD_LIFETIME_MS;

  it('keeps the newest records first, without duplicates', () => {
    const a = { kind: 'url', value: '/a', at: now - 5 } as const;
    const b = { kind: 'tag', value: 't', at: now - 1 } as const;
    expect(keptList([a, b, a], now).records).toEqual([b, a]);
  });

  it('drops records older than the lifetime', () => {
    expect(keptList([{ kind: 'everything', value: '', at: now - RECORD_LIFETIME_MS - 1 }], now).records).toEqual([]);
  });

  it(`keeps at most ${MAX_RECORDS} records`, () => {
    const many = Array.from(
      { length: MAX_RECORDS + 5 },
      (_, i): PurgeRecord => ({ kind: 'url', value: `/${i}`, at: now - i }),
    );
    const kept = keptList(many, now).records;
    expect(kept).toHaveLength(MAX_RECORDS);
    expect(kept[0]?.value).toBe('/0');
  });
});

describe('asRecord', () => {
  it('accepts a stored record and refuses anything else', () => {
    expect(asRecord({ kind: 'prefix', value: '/a', at: 5 })).toEqual({ kind: 'prefix', value: '/a', at: 5 });
    for (const bad of [
      null,
      'x',
      { kind: 'host', value: 'a', at: 1 },
      { kind: 'url', value: 1, at: 1 },
      { kind: 'url', value: '/a', at: 'now' },
    ]) {
      expect(asRecord(bad)).toBeUndefined();
    }
  });
});

describe('judged by when the bytes came from the origin', () => {
  const records: PurgeRecord[] = [{ kind: 'url', value: '/a', at: 2000 }];

  it('purges a copy stored after the purge whose bytes came from the origin before it (a refill from a tier that had not read it)', () => {
    const check = purgedBy(listOf(records), '/a');
    expect(check({ meta: { storedAt: 3000, originAt: 1500 }, headers: new Headers() })).toBe(true);
    expect(check({ meta: { storedAt: 3000, originAt: 2500 }, headers: new Headers() })).toBe(false);
    // An entry stored before origin times were kept is judged by when it was stored.
    expect(check({ meta: { storedAt: 1500 }, headers: new Headers() })).toBe(true);
  });

  it('applies the watermark a tier was told the same way', () => {
    const check = purgedBy(listOf([]), '/a', 2000);
    expect(check({ meta: { storedAt: 9000, originAt: 1999 }, headers: new Headers() })).toBe(true);
    expect(check({ meta: { storedAt: 9000, originAt: 2001 }, headers: new Headers() })).toBe(false);
  });

  it('a tag purge is seen on an answer that carries the tag, and raises the watermark sent on', () => {
    const watch = purgeWatch(listOf([{ kind: 'tag', value: 'blog', at: 2000 }]), '/a');
    expect(watch.watermark()).toBeUndefined();
    expect(
      watch.purged({ meta: { storedAt: 5000, originAt: 1000 }, headers: new Headers({ 'cache-tag': 'blog' }) }),
    ).toBe(true);
    expect(watch.watermark()).toBe(2000);
  });
});

describe('what the kept list can no longer vouch for (vouchedSince)', () => {
  const now = 100 * RECORD_LIFETIME_MS;
  const entry = (originAt: number, tags = '') => ({
    meta: { storedAt: now, originAt },
    headers: new Headers(tags ? { 'cache-tag': tags } : {}),
  });
  /** `count` URL purges of `/n/<i>`, the newest at `newest`, one ms apart. */
  const urlPurges = (count: number, newest: number): PurgeRecord[] =>
    Array.from({ length: count }, (_, i) => ({ kind: 'url', value: `/n/${i}`, at: newest - i }));

  it(`counts as purged whatever came from the origin at or before the newest record dropped past the newest ${MAX_RECORDS}`, () => {
    const records = [
      // Older than every URL purge: the first dropped.
      { kind: 'prefix', value: '/docs/', at: now - MAX_RECORDS - 5000 } as const,
      ...urlPurges(MAX_RECORDS + 1, now - 1),
    ];
    const list = keptList(records, now);
    expect(list.records).toHaveLength(MAX_RECORDS);
    expect(list.records.some((record) => record.kind === 'prefix')).toBe(false);
    // The newest record dropped is `/n/<MAX_RECORDS>`, made at now - 1 - MAX_RECORDS.
    expect(list.vouchedSince).toBe(now - 1 - MAX_RECORDS);
    expect(purgedBy(list, '/docs/a.html')(entry(now - MAX_RECORDS - 6000))).toBe(true);
    expect(purgedBy(list, '/other')(entry(now - 1 - MAX_RECORDS))).toBe(true);
    // Newer than anything dropped: judged by the records it kept.
    expect(purgedBy(list, '/other')(entry(now - MAX_RECORDS))).toBe(false);
    expect(purgedBy(list, '/n/0')(entry(now - MAX_RECORDS))).toBe(true);
  });

  it('counts as purged whatever came from the origin longer than a record lifetime ago', () => {
    const list = keptList([{ kind: 'url', value: '/a', at: now - RECORD_LIFETIME_MS - 1 }], now);
    expect(list.records).toEqual([]);
    expect(list.vouchedSince).toBe(now - RECORD_LIFETIME_MS);
    expect(purgedBy(list, '/a')(entry(now - RECORD_LIFETIME_MS - 2))).toBe(true);
    // Even with no record at all: the store may have let one expire without saying so.
    expect(purgedBy(keptList([], now), '/b')(entry(now - RECORD_LIFETIME_MS))).toBe(true);
    expect(purgedBy(keptList([], now), '/b')(entry(now - RECORD_LIFETIME_MS + 1))).toBe(false);
  });

  it('never lowers the floor it was given', () => {
    expect(keptList([], now, now - 10).vouchedSince).toBe(now - 10);
    expect(keptList(urlPurges(MAX_RECORDS + 1, now), now, now - 5).vouchedSince).toBe(now - 5);
  });

  it('tells the shield of the floor once it applied it, as of a purge', () => {
    const watch = purgeWatch({ records: [], vouchedSince: now - 100 }, '/a');
    expect(watch.watermark()).toBeUndefined();
    expect(watch.purged(entry(now - 50))).toBe(false);
    expect(watch.watermark()).toBeUndefined();
    expect(watch.purged(entry(now - 200))).toBe(true);
    expect(watch.watermark()).toBe(now - 100);
    expect(purgedBy(listOf([]), '/a', watch.watermark())(entry(now - 200))).toBe(true);
  });

  it('never serves again what a record purged, kept or dropped (by age or count): for any records, any entry', () => {
    // Records of sparse names, most within a lifetime, some past it, and about MAX_RECORDS live.
    const at = fc.integer({ min: now - 1.3 * RECORD_LIFETIME_MS, max: now });
    const named = (kind: PurgeRecord['kind'], n: number, time: number): PurgeRecord => ({
      kind,
      value: kind === 'tag' ? `t${n}` : `/p${n}`,
      at: time,
    });
    const kind = fc.constantFrom('url' as const, 'prefix' as const, 'tag' as const);
    const record = fc.tuple(kind, fc.integer({ min: 0, max: 5000 }), at).map(([k, n, time]) => named(k, n, time));
    fc.assert(
      fc.property(
        fc.array(record, { minLength: MAX_RECORDS + 100, maxLength: MAX_RECORDS + 400 }),
        // The entry (`/p7`, tagged `t7`), a record purging it, and how long before it its bytes came.
        kind,
        at,
        fc.integer({ min: 0, max: RECORD_LIFETIME_MS / 10 }),
        (others, purgedBy7, purgedAt, before) => {
          const records = [...others, named(purgedBy7, 7, purgedAt)];
          const origin = purgedAt - before;
          expect(isPurged({ originAt: origin, path: '/p7', tags: ['t7'] }, records)).toBe(true);
          expect(purgedBy(keptList(records, now), '/p7')(entry(origin, 't7'))).toBe(true);
        },
      ),
      // Shrinking a thousand records takes minutes: the first counterexample is reported as found.
      { numRuns: 200, endOnFailure: true },
    );
  });
});

describe('the records looked up rather than scanned (newestMatching)', () => {
  it('finds what a scan of every record with `matches` finds, hard and soft, for any records and any object', () => {
    const segment = fc.constantFrom('a', 'b', 'ab', 'a/', 'b/c', '');
    const path = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    const record = fc.record({
      kind: fc.constantFrom('url' as const, 'prefix' as const, 'tag' as const, 'everything' as const),
      value: fc.oneof(path, fc.constantFrom('x', 'y')),
      at: fc.integer({ min: 0, max: 100 }),
      soft: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), path, fc.subarray(['x', 'y', 'z']), (drawn, asked, tags) => {
        const records: PurgeRecord[] = drawn.map(({ soft, ...rest }) => (soft ? { ...rest, soft: true } : rest));
        for (const side of ['hard', 'soft'] as const) {
          const scanned = records
            .filter((r) => (r.soft === true) === (side === 'soft'))
            .filter((r) => matches(r, { originAt: 0, path: asked, tags }))
            .reduce((newest, r) => Math.max(newest, r.at), -Infinity);
          expect(newestMatching(records, asked, tags, side)).toBe(scanned);
        }
      }),
    );
  });
});
