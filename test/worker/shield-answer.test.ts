// The edge reading the shield's answers to slice requests (worker/shield-answer.ts): what it
// takes as a span of the pinned version, what as evidence of another version, and what as the
// shield's own failure.

import { describe, expect, it } from 'vitest';
import { SPAN_HEADER, WHOLE } from '../../shared/hop/slice-protocol.ts';
import { NextHopFailed, VersionChanged } from '../../shared/http/errors.ts';
import { OBJECT_HEADER, PIN_HEADER } from '../../shared/slices/object-meta.ts';
import type { UpstreamAnswer } from '../../shared/tier/ports.ts';
import { readShieldAnswer } from '../../worker/shield-answer.ts';

const MIB = 1024 * 1024;
const PINNED = { size: 3 * MIB, etag: '"v1"' };

/** A span answer for slice 1 of PINNED, with `headers` on top. */
function span(headers: Record<string, string | undefined>): Response {
  const given = Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return new Response(new Uint8Array(MIB), {
    status: 200,
    headers: { 'content-length': String(MIB), [SPAN_HEADER]: '1-1', ...Object.fromEntries(given) },
  });
}

/** The shield's `answer` to a request for slice 1 (of PINNED, unless discovering). */
function ask(answer: () => Response, pinned = true): Promise<UpstreamAnswer> {
  return readShieldAnswer(answer(), { first: 1, last: 1 }, pinned ? PINNED : undefined, MIB, 0);
}

describe('the shield as the edge reads it', () => {
  it('pins the version its marks name; the ETag field is the representation as served (a weak one after a 304)', async () => {
    const answer = await ask(() =>
      span({ [OBJECT_HEADER]: `size=${3 * MIB}; slice=${MIB}`, [PIN_HEADER]: '"v1"', etag: 'W/"v1"' }),
    );
    expect(answer).toMatchObject({ kind: 'span', meta: { size: 3 * MIB, sliceSize: MIB, etag: '"v1"' } });
    if (answer.kind === 'span') expect(answer.meta.headers.get('etag')).toBe('W/"v1"');
  });

  it('reads a shield of the release before the pin had its own field by its strong ETag field', async () => {
    const answer = await ask(() => span({ [OBJECT_HEADER]: `size=${3 * MIB}; slice=${MIB}`, etag: '"v1"' }));
    expect(answer).toMatchObject({ kind: 'span', meta: { etag: '"v1"' } });
  });

  it('never takes a marked answer it cannot read for a whole object: a slice is never served as one', async () => {
    for (const headers of [
      { [OBJECT_HEADER]: 'size=3; slice=x' },
      { [OBJECT_HEADER]: `size=${3 * MIB}; slice=${MIB}`, [PIN_HEADER]: 'W/"v1"' },
      { [OBJECT_HEADER]: `size=${3 * MIB}; slice=${MIB}`, etag: 'W/"v1"' },
    ]) {
      await expect(
        ask(() => span(headers), false),
        JSON.stringify(headers),
      ).rejects.toBeInstanceOf(VersionChanged);
    }
    const whole = await ask(
      () => new Response('small', { headers: { [OBJECT_HEADER]: WHOLE, 'content-length': '5' } }),
      false,
    );
    expect(whole.kind).toBe('whole');
    if (whole.kind === 'whole') expect(whole.response.headers.has(OBJECT_HEADER)).toBe(false);
  });

  it("takes the shield's 5xx or 429 for a pinned slice as its failure, with its status and Retry-After, not as a new version", async () => {
    for (const status of [500, 502, 503, 504, 429]) {
      const failure = await ask(() => new Response('busy', { status, headers: { 'retry-after': '3' } })).catch(
        (error: unknown) => error,
      );
      expect(failure, String(status)).toBeInstanceOf(NextHopFailed);
      expect(failure).toMatchObject({ status, upstreamStatus: status, headers: { 'retry-after': '3' } });
    }
  });

  it('takes a pinned slice answered whole, 404, 410 or 412 as evidence of another version', async () => {
    for (const status of [200, 404, 410, 412]) {
      await expect(
        ask(() => new Response('x', { status })),
        String(status),
      ).rejects.toBeInstanceOf(VersionChanged);
    }
  });

  it('takes a pinned span answer naming other slices, another length or none as not the slice (nginx: every slice checked)', async () => {
    const marks = { [OBJECT_HEADER]: `size=${3 * MIB}; slice=${MIB}`, [PIN_HEADER]: '"v1"' };
    for (const headers of [
      { [SPAN_HEADER]: '0-1' },
      { [SPAN_HEADER]: '1-2' },
      { [SPAN_HEADER]: '01-1' },
      { [SPAN_HEADER]: '1-3' },
      { [SPAN_HEADER]: '' },
      { [SPAN_HEADER]: 'x' },
      { 'content-length': String(MIB - 1) },
      { [PIN_HEADER]: '"v2"' },
      { [OBJECT_HEADER]: `size=${4 * MIB}; slice=${MIB}` },
    ]) {
      await expect(
        ask(() => span({ ...marks, ...headers })),
        JSON.stringify(headers),
      ).rejects.toBeInstanceOf(VersionChanged);
    }
    await expect(ask(() => span(marks))).resolves.toMatchObject({ kind: 'span', span: { first: 1, last: 1 } });
  });
});
