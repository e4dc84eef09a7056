// Answers without a Content-Length are held until they have ended (shared/tier/held-until-whole.ts), and what an
// isolate holds of them in all is bounded (shared/tier/held-pool.ts), through both workers: past the pool, a body
// that may be stored is held in the store, and one that may not is refused before any byte goes out, with a status
// that says so. None is ever cut silently. Every answer here is under way at once: the origin sends all but the last
// byte of each and keeps that byte until every request has reached it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { HELD_POOL_BYTES } from '../../shared/tier/held-pool.ts';
import { HOLD_BYTES } from '../../shared/tier/held-until-whole.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { settle, until } from './fixture.ts';
import { type Framed, rawFramedGet } from './raw-framing.ts';

/** Each body: as much as one answer may hold, less a KiB (its chunks are copied as they come). */
const SIZE = HOLD_BYTES - 1024;
/** What the pool holds of these bodies at most, at once. */
const HELD_AT_ONCE = Math.floor(HELD_POOL_BYTES / SIZE);
/** Half as many again as the pool holds. */
const ANSWERS = Math.ceil(HELD_AT_ONCE * 1.5);
const WAIT_MS = 60_000;
/** The longest the last bytes wait for answers past the pool to be refused (on the unchanged code, none ever is). */
const REFUSALS_WAIT_MS = 20_000;

let origin: AnyOrigin;
let stack: Stack;
let run = 0;

beforeAll(async () => {
  origin = await startAnyOrigin();
  // The bodies wait at their last byte for each other, not for a fault: no silence bound cuts them meanwhile.
  stack = await startWorkers({
    config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't', ORIGIN_IDLE_TIMEOUT_MS: String(WAIT_MS) },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

const shieldMember = (answer: Framed): string => (answer.headers.get('cache-status') ?? '').split(',')[0]?.trim() ?? '';

/**
 * GETs `count` paths at once, each answered chunked with `headers` and held at its last byte until every request has
 * reached the origin, and then until `refusals` answers have come back refused (as many as cannot be held; bounded by
 * REFUSALS_WAIT_MS) or, with none expected, a moment for the tiers to read what was sent; answers each one as it came.
 */
async function heldAtOnce(
  headers: Record<string, string>,
  count = ANSWERS,
  refusals = 0,
): Promise<{ bytes: Uint8Array; answers: Framed[] }> {
  const bytes = patternBytes(++run, SIZE);
  let release: () => void = () => undefined;
  const lastByte = new Promise<void>((resolve) => (release = resolve));
  const paths = Array.from({ length: count }, (_, i) => `/held-${run}-${i}.bin`);
  for (const path of paths) origin.answer(path, { status: 200, headers, body: bytes, lastByteAfter: lastByte });
  let refused = 0;
  const answering = Promise.all(
    paths.map(async (path) => {
      const answer = await rawFramedGet(stack.url, path, {}, WAIT_MS);
      if (answer.status >= 500) refused++;
      return answer;
    }),
  );
  await until(() => paths.every((path) => origin.receivedFor(path).length > 0), WAIT_MS);
  if (refusals > 0) await until(() => refused >= refusals, REFUSALS_WAIT_MS);
  else await settle(1500);
  release();
  return { bytes, answers: await answering };
}

describe('answers of unknown length held at once, past the isolate pool', () => {
  it('that may not be stored: each is whole, or refused with a 503 and Retry-After before any byte; no more are whole than the pool holds', async () => {
    const { bytes, answers } = await heldAtOnce(
      { 'content-type': 'application/octet-stream', 'cache-control': 'no-store', 'transfer-encoding': 'chunked' },
      ANSWERS,
      ANSWERS - HELD_AT_ONCE,
    );
    const whole = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    for (const answer of whole) {
      expect(answer.framing, 'a whole answer goes out with its length').toBe('length');
      expect(answer.complete, 'a whole answer is complete').toBe(true);
      expect(sha256(answer.body), 'a whole answer is every byte').toBe(sha256(bytes));
    }
    for (const answer of refused) {
      // RFC 9110 §15.6.4: a temporary overload of ours, and when to ask again (§10.2.3); a body of our own, whole.
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.complete, 'the refusal is complete').toBe(true);
      expect(shieldMember(answer)).toMatch(/^tiercache-shield; .*detail=held-bodies-full/);
      expect(answer.body.toString()).toContain('no Content-Length');
    }
    expect(whole.length, `whole answers, of ${ANSWERS} held at once`).toBeLessThanOrEqual(HELD_AT_ONCE);
    expect(whole.length + refused.length).toBe(ANSWERS);
  });

  it('whose clients left before their answers ended: their shares go back, and the next as many held at once are whole', async () => {
    const bytes = patternBytes(++run, SIZE);
    let release: () => void = () => undefined;
    const lastByte = new Promise<void>((resolve) => (release = resolve));
    const headers = { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' };
    const paths = Array.from({ length: HELD_AT_ONCE }, (_, i) => `/left-${run}-${i}.bin`);
    for (const path of paths)
      origin.answer(path, {
        status: 200,
        headers: { ...headers, 'transfer-encoding': 'chunked' },
        body: bytes,
        lastByteAfter: lastByte,
      });
    const leaving = paths.map(() => new AbortController());
    const answers = paths.map((path, i) =>
      fetch(new URL(path, stack.url), { signal: leaving[i]?.signal }).catch(() => undefined),
    );
    await until(() => paths.every((path) => origin.receivedFor(path).length > 0), WAIT_MS);
    // Most of each body is in when its client leaves.
    await settle(500);
    for (const controller of leaving) controller.abort();
    await Promise.all(answers);
    release();
    await settle(1000);

    const again = await heldAtOnce({ ...headers, 'transfer-encoding': 'chunked' }, HELD_AT_ONCE);
    for (const answer of again.answers) {
      expect(answer.status, shieldMember(answer)).toBe(200);
      expect(sha256(answer.body)).toBe(sha256(again.bytes));
    }
  });

  it('that may be stored: every one is whole, held in the store past the pool, and a hit next time', async () => {
    const { bytes, answers } = await heldAtOnce({
      'content-type': 'application/octet-stream',
      'cache-control': 'max-age=600',
      'transfer-encoding': 'chunked',
    });
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.framing).toBe('length');
      expect(answer.complete).toBe(true);
      expect(sha256(answer.body)).toBe(sha256(bytes));
    }
    await settle(300);
    const again = await rawFramedGet(stack.url, `/held-${run}-0.bin`, {}, WAIT_MS);
    expect((again.headers.get('cache-status') ?? '').split(',').at(-1)?.trim()).toMatch(/^tiercache-edge; hit/);
    expect(sha256(again.body)).toBe(sha256(bytes));
  });
});
