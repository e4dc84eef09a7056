// Soft purge's pure parts: the body's `soft`, the record format (KV metadata and the edge→shield body), the verdict a
// tier hands its read path, and the entry's timing once soft-purged.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { staleUse } from '../../../shared/http/stale.ts';
import {
  asRecord,
  isPurged,
  lastPurge,
  MAX_VALUE_LENGTH,
  type PurgeList,
  type PurgeRecord,
  parsePurgeBody,
  purgedBy,
} from '../../../shared/purge/purge-rules.ts';
import { softPurgedAt, softPurgedAtHeader, softPurgeWatch, staleSince } from '../../../shared/purge/soft-purge.ts';
import { currentAge, type EntryMeta, remainingFreshness } from '../../../shared/store/stored-entry.ts';

const listOf = (records: PurgeRecord[]): PurgeList => ({ records, vouchedSince: -Infinity });
const soft = (kind: PurgeRecord['kind'], value: string, at = 1000): PurgeRecord => ({ kind, value, at, soft: true });
const entry = (originAt: number, tags = ''): { meta: { storedAt: number; originAt: number }; headers: Headers } => ({
  meta: { storedAt: originAt, originAt },
  headers: new Headers(tags === '' ? {} : { 'cache-tag': tags }),
});
const meta = (over: Partial<EntryMeta> = {}): EntryMeta => ({
  storedAt: 0,
  initialAge: 0,
  lifetime: 3600,
  whileRevalidate: 0,
  ifError: 0,
  mustRevalidate: false,
  ...over,
});

describe('parsePurgeBody: soft', () => {
  it('takes "soft": true or false for the whole request; absent is a hard purge', () => {
    const parsed = parsePurgeBody('{"urls": ["/a"], "tags": ["t"], "soft": true}');
    expect(parsed).toEqual({
      ok: true,
      request: { urls: ['/a'], prefixes: [], tags: ['t'], everything: false, soft: true },
    });
    expect(parsePurgeBody('{"everything": true, "soft": false}')).toMatchObject({ ok: true, request: { soft: false } });
    expect(parsePurgeBody('{"everything": true}')).toMatchObject({ ok: true, request: { soft: false } });
  });

  it('refuses a "soft" that is not a boolean, naming the field', () => {
    for (const value of ['"yes"', '1', 'null', '[]', '{}']) {
      const parsed = parsePurgeBody(`{"urls": ["/a"], "soft": ${value}}`);
      expect(parsed.ok, value).toBe(false);
      if (!parsed.ok) expect(parsed.reason).toBe(`expected "soft" to be true or false, got ${JSON.stringify(value)}`);
    }
  });

  it('"soft" alone names nothing to purge', () => {
    expect(parsePurgeBody('{"soft": true}')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/at least one/),
    });
  });
});

describe('the soft record', () => {
  it('is read back soft only when it says `soft: true`; a record without the field is hard', () => {
    expect(asRecord({ kind: 'url', value: '/a', at: 5, soft: true })).toEqual(soft('url', '/a', 5));
    expect(asRecord({ kind: 'url', value: '/a', at: 5 })).toEqual({ kind: 'url', value: '/a', at: 5 });
    for (const other of [false, 'true', 1, null])
      expect(asRecord({ kind: 'tag', value: 't', at: 5, soft: other })).toEqual({ kind: 'tag', value: 't', at: 5 });
  });

  it('fits KV metadata (1,024 bytes) at the longest value, as a hard record does', () => {
    const longest = soft('prefix', `/${'a'.repeat(MAX_VALUE_LENGTH - 1)}`, 9_999_999_999_999);
    expect(new TextEncoder().encode(JSON.stringify(longest)).length).toBeLessThanOrEqual(1024);
  });

  it('removes nothing: the hard checks pass it by', () => {
    const records = [soft('everything', ''), soft('url', '/a'), soft('tag', 't')];
    expect(isPurged({ originAt: 1, path: '/a', tags: ['t'] }, records)).toBe(false);
    expect(lastPurge(records, '/a', ['t'])).toBeUndefined();
    expect(purgedBy(listOf(records), '/a')(entry(1, 't'))).toBe(false);
  });
});

describe('softPurgedAt', () => {
  it('answers the newest soft purge matching an entry whose bytes came from the origin at or before it', () => {
    const list = listOf([soft('prefix', '/img/', 500), soft('tag', 'blog', 800), soft('url', '/img/a.png', 300)]);
    const check = softPurgedAt(list, '/img/a.png');
    expect(check(entry(200))).toBe(500);
    expect(check(entry(200, 'Blog'))).toBe(800);
    expect(check(entry(500))).toBe(500);
    expect(check(entry(501))).toBeUndefined();
    expect(softPurgedAt(list, '/docs/x')(entry(1))).toBeUndefined();
  });

  it('takes the edge’s watermark for a purge this tier has not read', () => {
    expect(softPurgedAt(listOf([]), '/a', 700)(entry(700))).toBe(700);
    expect(softPurgedAt(listOf([]), '/a', 700)(entry(701))).toBeUndefined();
    expect(softPurgedAt(listOf([]), '/a')(entry(1))).toBeUndefined();
  });

  it('ignores hard records (those purge.ts judges)', () => {
    expect(softPurgedAt(listOf([{ kind: 'everything', value: '', at: 900 }]), '/a')(entry(1))).toBeUndefined();
  });

  it('is true exactly where a hard record of the same kind would purge', () => {
    const kinds = fc.constantFrom<PurgeRecord['kind']>('url', 'prefix', 'tag', 'everything');
    fc.assert(
      fc.property(kinds, fc.constantFrom('/a/b', '/a/', '/c', 't', ''), fc.nat(2000), (kind, value, origin) => {
        const hard: PurgeRecord = { kind, value, at: 1000 };
        const subject = entry(origin, 't');
        expect(softPurgedAt(listOf([{ ...hard, soft: true }]), '/a/b')(subject) !== undefined).toBe(
          purgedBy(listOf([hard]), '/a/b')(subject),
        );
      }),
    );
  });
});

describe('softPurgeWatch', () => {
  it('tells the shield of a soft purge by URL, prefix or everything at once, and of a tag purge once it applied', () => {
    const list = listOf([soft('prefix', '/img/', 500), soft('tag', 'blog', 800)]);
    const watch = softPurgeWatch(list, '/img/a.png');
    expect(watch.watermark()).toBe(500);
    expect(watch.softPurgedAt(entry(100, 'blog'))).toBe(800);
    expect(watch.watermark()).toBe(800);
    expect(softPurgeWatch(listOf([soft('tag', 'blog')]), '/x').watermark()).toBeUndefined();
  });
});

describe('staleSince', () => {
  it('ends freshness at the purge, keeps the stale windows, which run from it', () => {
    const stored = meta({ storedAt: 10_000, initialAge: 5, lifetime: 3600, whileRevalidate: 60 });
    const purgedAt = 40_000;
    const stale = staleSince(stored, purgedAt);
    expect(stale).toEqual({ ...stored, lifetime: currentAge(stored, purgedAt) });
    expect(remainingFreshness(stale, purgedAt)).toBe(0);
    expect(staleUse(stale, purgedAt)).toBe('serve-stale-and-refresh');
    expect(staleUse(stale, purgedAt + 59_000)).toBe('serve-stale-and-refresh');
    expect(staleUse(stale, purgedAt + 60_000)).toBe('revalidate');
    // Without a stale window of its own: revalidated before it is served again (no grace of ours).
    expect(staleUse(staleSince(meta({ storedAt: 10_000 }), purgedAt), purgedAt)).toBe('revalidate');
    // must-revalidate forbids serving it stale at all.
    expect(staleUse(staleSince({ ...stored, mustRevalidate: true }, purgedAt), purgedAt)).toBe('revalidate');
  });

  it('never lengthens freshness: an entry already stale, or stored after the purge, stays stale', () => {
    const old = meta({ storedAt: 0, lifetime: 10 });
    expect(staleSince(old, 60_000).lifetime).toBe(10);
    const refilled = meta({ storedAt: 50_000, initialAge: 3 });
    expect(staleSince(refilled, 40_000).lifetime).toBe(3);
    expect(staleUse(staleSince(refilled, 40_000), 50_000)).toBe('revalidate');
  });
});

describe('softPurgedAtHeader', () => {
  it('reads whole ms, and nothing else', () => {
    expect(softPurgedAtHeader('1798720000000')).toBe(1798720000000);
    for (const bad of [null, '', '-1', '1.5', 'soon', '9'.repeat(16)]) expect(softPurgedAtHeader(bad)).toBeUndefined();
  });
});
