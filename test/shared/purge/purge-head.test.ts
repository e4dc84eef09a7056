import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HEAD_SETTLE_MS,
  headValue,
  headWriteDue,
  KV_WRITE_INTERVAL_MS,
  listDue,
  parseHead,
  parseShared,
  refusedAsTooFrequent,
  SAFETY_LIST_MS,
  SHARE_MS,
  sharedUsable,
  sharedValue,
} from '../../../shared/purge/purge-head.ts';
import { REFRESH_MS } from '../../../shared/purge/purge-rules.ts';

const T0 = 1_800_000_000_000;
const head = { at: T0, id: 'h1' };

describe('listDue: when an isolate lists the batches', () => {
  const listed = { listedHead: 'h1', listedAt: T0 + 70_000, complete: T0 + 10_000 };

  it('lists when it never listed, whatever the head', () => {
    expect(listDue({ listedHead: undefined, listedAt: -Infinity, complete: -Infinity }, null, T0)).toBe('never listed');
    expect(listDue({ listedHead: undefined, listedAt: -Infinity, complete: -Infinity }, head, T0)).toBe('never listed');
  });

  it('lists when the head changed since its last list, or appeared, or went', () => {
    expect(listDue(listed, { at: T0 + 1, id: 'h2' }, T0 + 70_001)).toBe('head changed');
    expect(listDue({ ...listed, listedHead: null }, head, T0 + 70_001)).toBe('head changed');
    expect(listDue(listed, null, T0 + 70_001)).toBe('head changed');
  });

  it(`keeps listing until its list is complete past the head's time and ${HEAD_SETTLE_MS} ms`, () => {
    expect(listDue({ ...listed, complete: T0 + HEAD_SETTLE_MS - 1 }, head, T0 + 70_001)).toBe('settling');
    expect(listDue({ ...listed, complete: T0 + HEAD_SETTLE_MS }, head, T0 + 70_001)).toBeUndefined();
  });

  it(`lists every ${SAFETY_LIST_MS} ms whatever the head says, and otherwise not`, () => {
    expect(listDue(listed, head, listed.listedAt + SAFETY_LIST_MS - 1)).toBeUndefined();
    expect(listDue(listed, head, listed.listedAt + SAFETY_LIST_MS)).toBe('safety');
    expect(listDue({ ...listed, listedHead: null }, null, listed.listedAt + SAFETY_LIST_MS - 1)).toBeUndefined();
  });
});

describe("sharedUsable: taking the location's read of the head", () => {
  it(`takes a read at most ${SHARE_MS} ms old and newer than the one held; never one from the future`, () => {
    const shared = { head, readAt: T0 };
    expect(sharedUsable(shared, T0 - 1, T0 + SHARE_MS)).toBe(true);
    expect(sharedUsable(shared, T0 - 1, T0 + SHARE_MS + 1)).toBe(false);
    expect(sharedUsable(shared, T0, T0 + 1)).toBe(false);
    expect(sharedUsable(shared, T0 - 1, T0 - 1)).toBe(false);
    expect(sharedUsable(undefined, -Infinity, T0)).toBe(false);
  });

  it('keeps the bound: a shared read is at most SHARE_MS old, and the next re-read is REFRESH_MS after the read', () => {
    expect(SHARE_MS).toBeLessThan(REFRESH_MS);
    expect(SHARE_MS).toBeGreaterThan(0);
  });
});

describe('the head and the shared read as stored', () => {
  it('reads back what it wrote', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), fc.string(), (at, id) => {
        expect(parseHead(headValue({ at, id }))).toEqual({ at, id });
        const shared = { head: { at, id }, readAt: at };
        expect(parseShared(sharedValue(shared))).toEqual(shared);
        expect(parseShared(sharedValue({ head: null, readAt: at }))).toEqual({ head: null, readAt: at });
      }),
    );
  });

  it('never throws, and reads what is not a head as a head that changes with the text (an isolate lists then)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const read = parseHead(text);
        expect(read).not.toBeNull();
        expect(parseShared(text) === undefined || typeof parseShared(text)?.readAt === 'number').toBe(true);
      }),
    );
    expect(parseHead(null)).toBeNull();
    expect(parseHead('{"at":"x"}')).toEqual({ at: Infinity, id: 'unreadable:{"at":"x"}' });
    expect(
      listDue({ listedHead: 'unreadable:{"at":"x"}', listedAt: T0, complete: T0 }, parseHead('{"at":"x"}'), T0),
    ).toBe('settling');
  });
});

describe('writing the head', () => {
  it(`writes unless this isolate wrote it less than ${KV_WRITE_INTERVAL_MS} ms before`, () => {
    expect(headWriteDue(undefined, T0)).toBe(true);
    expect(headWriteDue(T0, T0 + KV_WRITE_INTERVAL_MS - 1)).toBe(false);
    expect(headWriteDue(T0, T0 + KV_WRITE_INTERVAL_MS)).toBe(true);
    // A clock that went back is not trusted to have written recently.
    expect(headWriteDue(T0, T0 - 1)).toBe(true);
  });

  it('the settle margin covers a write skipped or refused within a write interval of the one it lost to', () => {
    expect(HEAD_SETTLE_MS).toBeGreaterThanOrEqual(2 * KV_WRITE_INTERVAL_MS);
  });

  it("tells KV's 1-write-a-second refusal from other failures", () => {
    expect(refusedAsTooFrequent(new Error('KV PUT failed: 429 Too Many Requests'))).toBe(true);
    expect(refusedAsTooFrequent(new Error('KV PUT failed: 500 Internal Server Error'))).toBe(false);
    expect(refusedAsTooFrequent('too many requests')).toBe(true);
  });
});
