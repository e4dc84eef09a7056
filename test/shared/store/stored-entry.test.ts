import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currentAge,
  type EntryMeta,
  fromStoredHeaders,
  originAt,
  remainingFreshness,
  tagForPlatform,
  toStoredHeaders,
} from '../../../shared/store/stored-entry.ts';

const STORED_AT = Date.parse('2026-09-01T12:00:00Z');
const STALE = { whileRevalidate: 60, ifError: 86400, mustRevalidate: false };
const meta: EntryMeta = { storedAt: STORED_AT, initialAge: 12.5, lifetime: 3600, ...STALE };
const NOT_STORED = [
  'age',
  'server-timing',
  'set-cookie',
  'cf-cache-status',
  'connection',
  'keep-alive',
  'transfer-encoding',
];

function originHeaders(): Headers {
  return new Headers({
    'content-type': 'image/png',
    'content-length': '1234',
    etag: '"abc"',
    'last-modified': 'Sat, 01 Aug 2026 00:00:00 GMT',
    'cache-control': 'public, max-age=3600, stale-while-revalidate=60',
    expires: 'Tue, 01 Sep 2026 13:00:00 GMT',
    date: 'Tue, 01 Sep 2026 11:59:48 GMT',
  });
}

function sorted(headers: Headers): [string, string][] {
  return [...headers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function unpack(stored: Headers): { headers: Headers; meta: EntryMeta } {
  const entry = fromStoredHeaders(stored);
  if (entry === undefined) throw new Error('expected our envelope to unpack');
  return entry;
}

describe('toStoredHeaders', () => {
  it('shows the platform a plain public max-age of the retention, rounded up', () => {
    expect(toStoredHeaders(originHeaders(), meta, 7200).get('cache-control')).toBe('public, max-age=7200');
    expect(toStoredHeaders(originHeaders(), meta, 59.1).get('cache-control')).toBe('public, max-age=60');
  });

  it('asks the platform to keep the entry at least one second', () => {
    expect(toStoredHeaders(originHeaders(), meta, 0).get('cache-control')).toBe('public, max-age=1');
    expect(toStoredHeaders(originHeaders(), meta, 0.2).get('cache-control')).toBe('public, max-age=1');
    expect(toStoredHeaders(originHeaders(), meta, -10).get('cache-control')).toBe('public, max-age=1');
  });

  it('hides Expires and Date from the platform, so it cannot shorten the retention or rewrite them', () => {
    const stored = toStoredHeaders(originHeaders(), meta, 7200);
    expect(stored.has('expires')).toBe(false);
    expect(stored.has('date')).toBe(false);
  });

  it('hides Content-Encoding from the platform, which would decode or re-frame the stored bytes, and restores it', () => {
    const h = originHeaders();
    h.set('content-encoding', 'br');
    const stored = toStoredHeaders(h, meta, 60);
    expect(stored.has('content-encoding')).toBe(false);
    expect(unpack(stored).headers.get('content-encoding')).toBe('br');
  });

  it('records the counted length and the fill, and reads them back', () => {
    const stored = toStoredHeaders(originHeaders(), meta, 60, { length: 1234, fill: 987654321 });
    expect(fromStoredHeaders(stored)?.body).toEqual({ length: 1234, fill: 987654321 });
    expect(fromStoredHeaders(toStoredHeaders(originHeaders(), meta, 60))?.body).toEqual({
      length: undefined,
      fill: undefined,
    });
  });

  it('does not store per-hop, per-request or per-client fields', () => {
    const h = originHeaders();
    h.set('age', '30');
    h.set('server-timing', 'origin;dur=5');
    h.append('set-cookie', 'a=1');
    h.append('set-cookie', 'b=2');
    h.set('cf-cache-status', 'MISS');
    h.set('keep-alive', 'timeout=5');
    const stored = toStoredHeaders(h, meta, 60);
    for (const name of NOT_STORED) expect(stored.has(name), name).toBe(false);
  });

  it('does not change the headers it was given', () => {
    const h = originHeaders();
    const before = sorted(h);
    toStoredHeaders(h, meta, 60);
    expect(sorted(h)).toEqual(before);
  });
});

describe('fromStoredHeaders', () => {
  it("restores the origin's Cache-Control, Expires and Date exactly", () => {
    const { headers } = unpack(toStoredHeaders(originHeaders(), meta, 7200));
    expect(headers.get('cache-control')).toBe('public, max-age=3600, stale-while-revalidate=60');
    expect(headers.get('expires')).toBe('Tue, 01 Sep 2026 13:00:00 GMT');
    expect(headers.get('date')).toBe('Tue, 01 Sep 2026 11:59:48 GMT');
  });

  it('gives back exactly the representation headers the origin sent, without our internal ones', () => {
    const { headers } = unpack(toStoredHeaders(originHeaders(), meta, 7200));
    expect(sorted(headers)).toEqual(sorted(originHeaders()));
  });

  it('restores no Cache-Control, Expires or Date the origin did not send, whatever the platform added', () => {
    const stored = toStoredHeaders(new Headers({ 'content-type': 'text/plain' }), meta, 60);
    // The platform cache may set its own Date and Age on the way in.
    stored.set('date', 'Wed, 02 Sep 2026 00:00:00 GMT');
    stored.set('age', '100');
    const { headers } = unpack(stored);
    expect(sorted(headers)).toEqual([['content-type', 'text/plain']]);
  });

  it('gives back the timing the tier stored', () => {
    const stored = toStoredHeaders(
      originHeaders(),
      {
        storedAt: STORED_AT + 0.4,
        initialAge: 1.23456,
        lifetime: 600,
        whileRevalidate: 0,
        ifError: 30,
        mustRevalidate: true,
      },
      600,
    );
    expect(unpack(stored).meta).toEqual({
      storedAt: STORED_AT,
      initialAge: 1.235,
      lifetime: 600,
      whileRevalidate: 0,
      ifError: 30,
      mustRevalidate: true,
    });
  });

  it('gives back when the bytes came from the origin, and takes storedAt for an entry that kept none', () => {
    const relayed = { ...meta, originAt: STORED_AT - 30_000 };
    expect(unpack(toStoredHeaders(originHeaders(), relayed, 600)).meta).toEqual(relayed);
    expect(originAt(unpack(toStoredHeaders(originHeaders(), relayed, 600)).meta)).toBe(STORED_AT - 30_000);
    const older = unpack(toStoredHeaders(originHeaders(), meta, 600)).meta;
    expect(older.originAt).toBeUndefined();
    expect(originAt(older)).toBe(STORED_AT);
  });

  it('is undefined for a response that is not our envelope', () => {
    expect(fromStoredHeaders(originHeaders())).toBeUndefined();
    expect(fromStoredHeaders(new Headers())).toBeUndefined();
  });

  it('is undefined when our timing header is damaged', () => {
    for (const value of [
      '',
      'garbage',
      'stored=1, age=2',
      'stored=1, age=2, life=x',
      'stored=-1, age=0, life=60',
      'stored=1, age=NaN, life=60',
    ]) {
      const stored = toStoredHeaders(originHeaders(), meta, 60);
      stored.set('x-tiercache-entry', value);
      expect(fromStoredHeaders(stored), value).toBeUndefined();
    }
  });
});

describe('currentAge and remainingFreshness (RFC 9111 §4.2.3)', () => {
  it('current_age is corrected_initial_age plus resident_time', () => {
    expect(currentAge(meta, STORED_AT)).toBe(12.5);
    expect(currentAge(meta, STORED_AT + 100_000)).toBe(112.5);
  });

  it('never counts a negative resident time when the clock is behind storedAt', () => {
    expect(currentAge(meta, STORED_AT - 60_000)).toBe(12.5);
  });

  it('the freshness left is the lifetime minus the current age', () => {
    expect(remainingFreshness(meta, STORED_AT)).toBe(3587.5);
    expect(remainingFreshness(meta, STORED_AT + 3_587_500)).toBe(0);
  });

  it('the freshness left is negative once the entry is stale (RFC 9111 §4.2: fresh iff lifetime > current_age)', () => {
    expect(remainingFreshness(meta, STORED_AT + 3_600_000)).toBe(-12.5);
  });
});

// --- properties ---------------------------------------------------------------------------

const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz";
/** Field names, leaving out our own internal prefix (see the report on origin-supplied x-tiercache-* fields). */
const fieldName = fc
  .oneof(
    fc.constantFrom(
      'cache-control',
      'expires',
      'date',
      'etag',
      'vary',
      'content-type',
      'age',
      'set-cookie',
      'server-timing',
      'connection',
      'transfer-encoding',
    ),
    fc.string({ unit: fc.constantFrom(...TCHAR), minLength: 1, maxLength: 10 }),
  )
  .filter((name) => !name.startsWith('x-tiercache-'));
/** Field values a Headers object accepts: Latin-1 without CR, LF or NUL. */
const fieldValue = fc.string({
  unit: fc.oneof(
    fc.constant('\t'),
    fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 30,
});
const entryMeta = fc.record(
  {
    storedAt: fc.integer({ min: 0, max: 8.64e15 }),
    initialAge: fc.integer({ min: 0, max: 1e9 }).map((n) => n / 1000),
    lifetime: fc.nat(),
    whileRevalidate: fc.nat(),
    ifError: fc.nat(),
    mustRevalidate: fc.boolean(),
    originAt: fc.integer({ min: 0, max: 8.64e15 }),
  },
  { requiredKeys: ['storedAt', 'initialAge', 'lifetime', 'whileRevalidate', 'ifError', 'mustRevalidate'] },
);

describe('stored entry properties', () => {
  it("round-trips any header set, minus the fields never stored, and the entry's timing", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fieldName, fieldValue), { maxLength: 12 }),
        entryMeta,
        fc.double({ min: -1e6, max: 1e9, noNaN: true }),
        (fields, timing, retention) => {
          const origin = new Headers(fields);
          const expected = new Headers(origin);
          for (const name of NOT_STORED) expected.delete(name);
          const entry = unpack(toStoredHeaders(origin, timing, retention));
          expect(sorted(entry.headers)).toEqual(sorted(expected));
          expect(entry.meta).toEqual(timing);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('tagForPlatform', () => {
  it("gives the platform our tags as Cache-Tag and restores the object's own, exactly, on the way out", () => {
    const headers = originHeaders();
    headers.set('cache-tag', 'Blog, News');
    const stored = toStoredHeaders(headers, meta, 3600);
    tagForPlatform(stored, ['tiercache-url-1', 'blog', 'news']);
    expect(stored.get('cache-tag')).toBe('tiercache-url-1,blog,news');
    const unpacked = unpack(stored);
    expect(unpacked.headers.get('cache-tag')).toBe('Blog, News');
    expect(sorted(unpacked.headers)).toEqual(sorted(unpack(toStoredHeaders(headers, meta, 3600)).headers));
  });

  it('leaves no Cache-Tag for a client when the object had none, and tags once', () => {
    const stored = toStoredHeaders(originHeaders(), meta, 3600);
    tagForPlatform(stored, ['tiercache-url-1']);
    tagForPlatform(stored, ['tiercache-url-2']);
    expect(stored.get('cache-tag')).toBe('tiercache-url-1');
    expect(unpack(stored).headers.has('cache-tag')).toBe(false);
    const untagged = toStoredHeaders(originHeaders(), meta, 3600);
    tagForPlatform(untagged, []);
    expect(untagged.has('cache-tag')).toBe(false);
  });
});
