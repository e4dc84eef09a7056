// Whether a hop's answer is the slice it asked for (shared/hop/slice-check.ts), checked as nginx's slice module
// checks each one: the status, the pinned version, exactly the bytes asked, the framing where promised, a body.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AskedSlice,
  checkSlice,
  checkVersion,
  type SliceStatement,
  wholeMeansAnotherVersion,
} from '../../../shared/hop/slice-check.ts';
import type { ObjectVersion } from '../../../shared/slices/slice-plan.ts';

const MIB = 1024 * 1024;
const PINNED: ObjectVersion = { size: 3 * MIB, etag: '"v1"' };
/** Slice 1 of PINNED, as the shield asks the origin for it. */
const FROM_ORIGIN: AskedSlice = { bytes: { start: MIB, end: 2 * MIB - 1 }, status: 206, exactLength: false };
/** The same slice, as the edge asks the shield for it. */
const FROM_SHIELD: AskedSlice = { ...FROM_ORIGIN, status: 200, exactLength: true };

/** An answer stating exactly what `asked` asked of PINNED, with `changes` on top. */
function answer(asked: AskedSlice, changes: Partial<SliceStatement<string>> = {}): SliceStatement<string> {
  const { start, end } = asked.bytes;
  return {
    etag: PINNED.etag,
    size: PINNED.size,
    range: { start, end },
    length: end - start + 1,
    body: 'bytes',
    ...changes,
  };
}

describe('checkSlice: an answer that is the slice', () => {
  it('takes the slice asked for, of the pinned version, and hands its body back', () => {
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN))).toEqual({ ok: true, body: 'bytes', exact: true });
    expect(checkSlice(FROM_SHIELD, PINNED, 200, answer(FROM_SHIELD))).toEqual({ ok: true, body: 'bytes', exact: true });
  });

  it('takes any version when discovering (nothing pinned yet)', () => {
    const other = answer(FROM_ORIGIN, { etag: '"v2"', size: 5 * MIB });
    expect(checkSlice(FROM_ORIGIN, undefined, 206, other)).toMatchObject({ ok: true });
  });

  it("takes an origin's 206 framed otherwise (chunked, or a Content-Length not the range's), as not exact", () => {
    for (const length of [undefined, MIB - 1, MIB + 1]) {
      expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { length })), String(length)).toEqual({
        ok: true,
        body: 'bytes',
        exact: false,
      });
    }
  });

  it('takes the rest of a span from an offset (a body healed part-way) as the bytes from there', () => {
    const rest: AskedSlice = { ...FROM_SHIELD, bytes: { start: MIB + 1000, end: 2 * MIB - 1 } };
    expect(checkSlice(rest, PINNED, 200, answer(rest))).toMatchObject({ ok: true, exact: true });
    expect(checkSlice(rest, PINNED, 200, answer(FROM_SHIELD))).toMatchObject({ ok: false });
  });

  it('takes an empty body for what it is: a body', () => {
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { body: '' }))).toMatchObject({
      ok: true,
      body: '',
    });
  });
});

describe('checkSlice: an answer that is not the slice, said as plainly as nginx says it', () => {
  it('refuses another status than the hop answers a slice with', () => {
    expect(checkSlice(FROM_ORIGIN, PINNED, 200, answer(FROM_ORIGIN))).toEqual({
      ok: false,
      why: 'unexpected status 200 in slice response while expecting 206',
    });
    expect(checkSlice(FROM_SHIELD, PINNED, 206, answer(FROM_SHIELD))).toEqual({
      ok: false,
      why: 'unexpected status 206 in slice response while expecting 200',
    });
  });

  it('refuses an answer whose framing names no bytes', () => {
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { range: undefined, size: undefined }))).toEqual({
      ok: false,
      why: 'no range in slice response',
    });
    expect(checkSlice(FROM_ORIGIN, undefined, 206, answer(FROM_ORIGIN, { range: undefined }))).toMatchObject({
      ok: false,
      why: 'no range in slice response',
    });
  });

  it('refuses another entity-tag than the pinned one, or none (RFC 9110 §8.8.3.2: compared strongly)', () => {
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { etag: '"v2"' }))).toEqual({
      ok: false,
      why: 'etag mismatch in slice response: "v2" while expecting "v1"',
    });
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { etag: 'W/"v1"' }))).toMatchObject({
      why: 'etag mismatch in slice response: W/"v1" while expecting "v1"',
    });
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { etag: null }))).toMatchObject({
      why: 'etag mismatch in slice response: none while expecting "v1"',
    });
  });

  it('refuses a slice of another Last-Modified or length when the version is pinned by them (an object without an ETag)', () => {
    const pinned: ObjectVersion = { size: 3 * MIB, etag: `modified=1735689600;length=${3 * MIB}` };
    const of = (etag: string | null, size = 3 * MIB) => answer(FROM_ORIGIN, { etag, size });
    expect(checkSlice(FROM_ORIGIN, pinned, 206, of(pinned.etag))).toMatchObject({ ok: true });
    expect(checkSlice(FROM_ORIGIN, pinned, 206, of(`modified=1735776000;length=${3 * MIB}`))).toMatchObject({
      ok: false,
      why: `etag mismatch in slice response: modified=1735776000;length=${3 * MIB} while expecting ${pinned.etag}`,
    });
    expect(checkSlice(FROM_ORIGIN, pinned, 206, of(`modified=1735689600;length=${4 * MIB}`, 4 * MIB))).toMatchObject({
      ok: false,
    });
    expect(checkSlice(FROM_ORIGIN, pinned, 206, of('"v1"'))).toMatchObject({ ok: false });
    expect(checkSlice(FROM_ORIGIN, pinned, 206, of(null))).toMatchObject({ ok: false });
  });

  it('refuses the pinned entity-tag on an object of another size', () => {
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { size: 4 * MIB }))).toEqual({
      ok: false,
      why: `size mismatch in slice response: ${4 * MIB} while expecting ${3 * MIB}`,
    });
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { size: undefined }))).toMatchObject({
      why: `size mismatch in slice response: none while expecting ${3 * MIB}`,
    });
  });

  it('refuses other bytes than those asked, naming both', () => {
    expect(checkSlice(FROM_ORIGIN, PINNED, 206, answer(FROM_ORIGIN, { range: { start: 0, end: MIB - 1 } }))).toEqual({
      ok: false,
      why: `unexpected range in slice response: 0-${MIB - 1} while expecting ${MIB}-${2 * MIB - 1}`,
    });
    for (const range of [
      { start: MIB, end: 2 * MIB - 2 },
      { start: MIB, end: 2 * MIB },
      { start: MIB + 1, end: 2 * MIB - 1 },
      { start: MIB - 1, end: 2 * MIB - 1 },
    ]) {
      expect(checkSlice(FROM_ORIGIN, undefined, 206, answer(FROM_ORIGIN, { range })), JSON.stringify(range)).toEqual({
        ok: false,
        why: `unexpected range in slice response: ${range.start}-${range.end} while expecting ${MIB}-${2 * MIB - 1}`,
      });
    }
  });

  it("refuses the shield's answer framed as another length than the bytes', or as none", () => {
    expect(checkSlice(FROM_SHIELD, PINNED, 200, answer(FROM_SHIELD, { length: MIB - 1 }))).toEqual({
      ok: false,
      why: `unexpected length in slice response: ${MIB - 1} while expecting ${MIB}`,
    });
    expect(checkSlice(FROM_SHIELD, PINNED, 200, answer(FROM_SHIELD, { length: undefined }))).toEqual({
      ok: false,
      why: `unexpected length in slice response: none while expecting ${MIB}`,
    });
  });

  it('refuses an answer without a body', () => {
    for (const asked of [FROM_ORIGIN, FROM_SHIELD]) {
      expect(checkSlice(asked, PINNED, asked.status, answer(asked, { body: null }))).toEqual({
        ok: false,
        why: 'no body in slice response',
      });
    }
  });

  it("says first what nginx's slice module checks first: the status, then the range, the version, the bytes", () => {
    const everythingWrong = answer(FROM_SHIELD, {
      etag: '"v2"',
      range: { start: 0, end: 9 },
      length: 3,
      body: null,
    });
    expect(checkSlice(FROM_SHIELD, PINNED, 500, everythingWrong)).toMatchObject({ why: /^unexpected status/ });
    expect(checkSlice(FROM_SHIELD, PINNED, 200, { ...everythingWrong, range: undefined })).toMatchObject({
      why: 'no range in slice response',
    });
    expect(checkSlice(FROM_SHIELD, PINNED, 200, everythingWrong)).toMatchObject({ why: /^etag mismatch/ });
    expect(checkSlice(FROM_SHIELD, PINNED, 200, { ...everythingWrong, etag: '"v1"' })).toMatchObject({
      why: /^unexpected range/,
    });
    expect(checkSlice(FROM_SHIELD, PINNED, 200, { ...answer(FROM_SHIELD), length: 3, body: null })).toMatchObject({
      why: /^unexpected length/,
    });
  });
});

describe('checkVersion: all there is to check of an answer holding no bytes', () => {
  it('takes the pinned version, and any when nothing is pinned', () => {
    expect(checkVersion(PINNED, { etag: '"v1"', size: 3 * MIB })).toEqual({ ok: true });
    expect(checkVersion(undefined, { etag: null, size: undefined })).toEqual({ ok: true });
  });

  it('refuses another entity-tag, then another size', () => {
    expect(checkVersion(PINNED, { etag: '"v2"', size: MIB })).toEqual({
      ok: false,
      why: 'etag mismatch in slice response: "v2" while expecting "v1"',
    });
    expect(checkVersion(PINNED, { etag: '"v1"', size: MIB })).toEqual({
      ok: false,
      why: `size mismatch in slice response: ${MIB} while expecting ${3 * MIB}`,
    });
  });
});

/** A version, a slicing and a span of it, and the offset into the span's bytes asked from. */
const askedOfVersion = fc
  .record({
    size: fc.integer({ min: 1, max: 2 ** 40 }),
    sliceSize: fc.integer({ min: 1, max: 2 ** 24 }),
    etag: fc.string({ maxLength: 8 }).map((tag) => `"${tag}"`),
    first: fc.nat(),
    last: fc.nat(),
    from: fc.nat(),
    status: fc.constantFrom(200, 206),
    exactLength: fc.boolean(),
  })
  .map(({ size, sliceSize, etag, first, last, from, status, exactLength }) => {
    const count = Math.ceil(size / sliceSize);
    const a = first % count;
    const b = last % count;
    const start = Math.min(a, b) * sliceSize;
    const end = Math.min((Math.max(a, b) + 1) * sliceSize, size) - 1;
    const asked: AskedSlice = { bytes: { start: start + (from % (end - start + 1)), end }, status, exactLength };
    return { asked, pinned: { size, etag } };
  });

/** One thing an answer states that is not what was asked, the rest as asked. */
const oneThingWrong = fc.constantFrom('status', 'etag', 'size', 'start', 'end', 'range', 'length', 'body');

describe('checkSlice, as properties', () => {
  it('takes every answer stating exactly what was asked, handing its body back', () => {
    fc.assert(
      fc.property(askedOfVersion, fc.boolean(), ({ asked, pinned }, discovering) => {
        const { start, end } = asked.bytes;
        const stated = { ...pinned, range: { start, end }, length: end - start + 1, body: 'b' };
        expect(checkSlice(asked, discovering ? undefined : pinned, asked.status, stated)).toEqual({
          ok: true,
          body: 'b',
          exact: true,
        });
      }),
    );
  });

  it('refuses every pinned answer with one thing wrong (but a length the hop does not hold it to), saying why', () => {
    fc.assert(
      fc.property(askedOfVersion, oneThingWrong, fc.integer({ min: 1, max: 1000 }), ({ asked, pinned }, wrong, by) => {
        const { start, end } = asked.bytes;
        const stated: SliceStatement<string> = { ...pinned, range: { start, end }, length: end - start + 1, body: 'b' };
        let status = asked.status;
        if (wrong === 'status') status += by;
        if (wrong === 'etag') stated.etag = `W/${pinned.etag}`;
        if (wrong === 'size') stated.size = pinned.size + by;
        if (wrong === 'start') stated.range = { start: start + by, end };
        if (wrong === 'end') stated.range = { start, end: end - by };
        if (wrong === 'range') stated.range = undefined;
        if (wrong === 'length') stated.length = end - start + 1 + by;
        if (wrong === 'body') stated.body = null;
        const check = checkSlice(asked, pinned, status, stated);
        if (wrong === 'length' && !asked.exactLength) expect(check).toEqual({ ok: true, body: 'b', exact: false });
        else expect(check).toMatchObject({ ok: false, why: expect.stringMatching(/ in slice response/) });
      }),
    );
  });

  it('never takes bytes other than those asked, nor, pinned, another version', () => {
    const statement = fc.record({
      etag: fc.option(fc.constantFrom('"a"', '"b"', 'W/"a"'), { nil: null }),
      size: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
      range: fc.option(fc.record({ start: fc.integer({ min: 0, max: 50 }), end: fc.integer({ min: 0, max: 50 }) }), {
        nil: undefined,
      }),
      length: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
      body: fc.option(fc.constant('b'), { nil: null }),
    });
    const asked = fc.record({
      bytes: fc.record({ start: fc.integer({ min: 0, max: 50 }), end: fc.integer({ min: 0, max: 50 }) }),
      status: fc.constantFrom(200, 206),
      exactLength: fc.boolean(),
    });
    const pinned = fc.option(
      fc.record({ etag: fc.constantFrom('"a"', '"b"'), size: fc.integer({ min: 0, max: 50 }) }),
      {
        nil: undefined,
      },
    );
    fc.assert(
      fc.property(asked, pinned, fc.constantFrom(200, 206, 416), statement, (asked, pinned, status, stated) => {
        const check = checkSlice(asked, pinned, status, stated);
        if (!check.ok) return;
        expect(status).toBe(asked.status);
        expect(stated.range).toEqual(asked.bytes);
        expect(stated.body).not.toBeNull();
        if (pinned !== undefined) expect({ etag: stated.etag, size: stated.size }).toEqual(pinned);
        if (asked.exactLength) expect(stated.length).toBe(asked.bytes.end - asked.bytes.start + 1);
      }),
    );
  });
});

describe('wholeMeansAnotherVersion', () => {
  it('a whole 200, 404 or 410 for a slice of a pinned version is another version; any other status is a failure', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
        expect(wholeMeansAnotherVersion(status)).toBe([200, 404, 410].includes(status));
      }),
    );
  });
});
