// Bodies the origin sends without a Content-Length (chunked), through both workers: one the
// origin's connection cuts in the middle never reaches a client as a complete-looking answer,
// and is never stored; one that ends whole goes out with its length, and is stored. workerd ends
// a chunked body whose stream failed with the last chunk as if it were complete (probed: a JS
// stream erroring, an IdentityTransformStream aborted, either through a service binding), so
// only an answer whose length was known when its head went out can fail visibly; the raw
// socket here reads the framing itself (RFC 9112 §6.3, §7.1).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { settle } from './fixture.ts';
import { type Framed, rawFramedGet } from './raw-framing.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
let origin: AnyOrigin;
let stack: Stack;
let objects = 0;

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({ config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't' } });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

const get = (path: string): Promise<Framed> => rawFramedGet(stack.url, path);
const edgeMember = (answer: Framed): string =>
  (answer.headers.get('cache-status') ?? '').split(',').at(-1)?.trim() ?? '';
const members = (answer: Framed): string[] =>
  (answer.headers.get('cache-status') ?? '').split(',').map((member) => member.trim());

/** A failed transfer, as a client can tell: an error status before any byte, or a framing that never ended. */
function expectVisiblyFailed(answer: Framed, label: string): void {
  if (answer.status >= 500) return;
  expect(answer.complete, `${label}: a ${answer.status} whose ${answer.framing} framing looks complete`).toBe(false);
}

const cases = [
  {
    name: 'a storable body',
    headers: { 'content-type': 'text/html', 'cache-control': 'max-age=600' },
    size: 300 * KiB,
  },
  { name: 'a no-store body', headers: { 'content-type': 'text/html', 'cache-control': 'no-store' }, size: 300 * KiB },
  {
    name: 'a storable body longer than a tier holds in memory',
    headers: { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=600' },
    size: 3 * MiB + 17,
  },
];

describe('a body without Content-Length that the origin cuts mid-way', () => {
  for (const shape of cases) {
    it(`${shape.name}: never reaches the client as a complete answer, is not reported stored, and the next request gets every byte (RFC 9112 §7.1, RFC 9211 §2.5)`, async () => {
      const path = `/cut-${++objects}.bin`;
      const bytes = patternBytes(objects, shape.size);
      origin.answer(path, { status: 200, headers: shape.headers, body: bytes, cutAfter: Math.floor(shape.size / 2) });
      const cut = await get(path);
      expectVisiblyFailed(cut, 'the cut answer');
      // RFC 9211 §2.5 `stored`: "the cache stored the response"; nothing was, at either tier.
      for (const member of members(cut)) expect(member, 'Cache-Status of the cut answer').not.toMatch(/;\s*stored/);
      await settle(300);

      origin.answer(path, { status: 200, headers: { ...shape.headers, 'transfer-encoding': 'chunked' }, body: bytes });
      const asked = origin.receivedFor(path).length;
      const next = await get(path);
      expect(next.status).toBe(200);
      expect(next.complete, 'the next answer is whole').toBe(true);
      expect(sha256(next.body), 'the next answer is every byte').toBe(sha256(bytes));
      // Nothing of the cut body was kept: the next request went to the origin again.
      expect(origin.receivedFor(path).length, 'the origin asked again').toBe(asked + 1);
    });
  }
});

describe('a body without Content-Length that ends whole', () => {
  for (const shape of cases.filter((c) => c.headers['cache-control'] !== 'no-store')) {
    it(`${shape.name}: goes out with its length, reported stored by the shield that held it whole, and is a hit next time`, async () => {
      const path = `/whole-${++objects}.bin`;
      const bytes = patternBytes(objects, shape.size);
      origin.answer(path, { status: 200, headers: { ...shape.headers, 'transfer-encoding': 'chunked' }, body: bytes });
      const miss = await get(path);
      expect(miss.status).toBe(200);
      expect(miss.framing, 'the length known when the head went out').toBe('length');
      expect(miss.headers.get('content-length')).toBe(String(shape.size));
      expect(miss.complete).toBe(true);
      expect(sha256(miss.body)).toBe(sha256(bytes));
      // RFC 9211 §2.5: the shield held the body until it had ended and was stored, so its member says so; the edge
      // got it with its length and streams it on as it stores it, so its head goes out before that is known
      // (shared/tier/stored-report.ts), and says nothing of it.
      expect(members(miss)).toEqual(['tiercache-shield; fwd=uri-miss; stored', 'tiercache-edge; fwd=uri-miss']);
      await settle(300);
      const hit = await get(path);
      expect(edgeMember(hit)).toMatch(/^tiercache-edge; hit/);
      expect(hit.headers.get('content-length')).toBe(String(shape.size));
      expect(sha256(hit.body)).toBe(sha256(bytes));
    });
  }
});

describe('a body without Content-Length that may not be stored and is longer than a tier holds in memory', () => {
  it('is refused with a 502 before any byte goes out, saying why: it could not be sent so that a cut would show', async () => {
    const path = `/long-no-store-${++objects}.bin`;
    origin.answer(path, {
      status: 200,
      headers: {
        'content-type': 'application/octet-stream',
        'cache-control': 'no-store',
        'transfer-encoding': 'chunked',
      },
      body: patternBytes(objects, 3 * MiB),
    });
    const answer = await get(path);
    expect(answer.status).toBe(502);
    expect(answer.complete).toBe(true);
    expect(members(answer)[0]).toMatch(/^tiercache-shield; .*detail=length-unknown/);
    expect(answer.body.toString()).toContain('no Content-Length');
  });
});
