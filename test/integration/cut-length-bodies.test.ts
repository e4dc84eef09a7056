// Bodies the origin sends with a Content-Length, through both workers: RFC 9211 §2.5 `stored` says "the cache stored
// the response", so a tier's member says it only of what it had stored when its head went out (shared/tier/
// stored-report.ts). A body short enough is waited for, and said stored once it is; the head of a longer one goes
// out while the body is still arriving, and says nothing of it. A body the origin cuts is never said stored, and
// nothing of it is: the next request goes to the origin again.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { STORED_KNOWN_BYTES } from '../../shared/tier/stored-report.ts';
import { type AnyOrigin, startAnyOrigin } from './any-origin.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { settle } from './fixture.ts';
import { type Framed, rawFramedGet } from './raw-framing.ts';

const KiB = 1024;
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
const members = (answer: Framed): string[] =>
  (answer.headers.get('cache-status') ?? '').split(',').map((member) => member.trim());
const storable = { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=600' };

const shapes = [
  { name: 'a body short enough to be waited for', size: Math.floor(STORED_KNOWN_BYTES / 2) },
  { name: 'a body longer than is waited for', size: 300 * KiB },
];

describe('a storable body with a Content-Length that the origin cuts mid-way', () => {
  for (const shape of shapes) {
    it(`${shape.name}: fails visibly, no tier says stored (RFC 9211 §2.5), and the next request goes to the origin`, async () => {
      const path = `/cut-length-${++objects}.bin`;
      const bytes = patternBytes(objects, shape.size);
      const headers = { ...storable, 'content-length': String(shape.size) };
      origin.answer(path, { status: 200, headers, body: bytes, cutAfter: Math.floor(shape.size / 2) });
      const cut = await get(path);
      // A 5xx of ours before any byte, or a 200 whose Content-Length never arrived.
      if (cut.status < 500) {
        expect(cut.status).toBe(200);
        expect(cut.framing).toBe('length');
        expect(cut.complete, 'the cut answer looks complete').toBe(false);
      }
      for (const member of members(cut)) expect(member, 'Cache-Status of the cut answer').not.toMatch(/;\s*stored/);
      await settle(300);

      origin.answer(path, { status: 200, headers: storable, body: bytes });
      const asked = origin.receivedFor(path).length;
      const next = await get(path);
      expect(next.status).toBe(200);
      expect(next.complete).toBe(true);
      expect(sha256(next.body)).toBe(sha256(bytes));
      expect(members(next).at(-1), 'the next answer is a miss').toMatch(/^tiercache-edge; fwd=uri-miss/);
      expect(origin.receivedFor(path).length, 'the origin asked again').toBe(asked + 1);
    });
  }
});

describe('a storable body with a Content-Length that ends whole', () => {
  it('short enough to be waited for: each tier says stored on the first miss (the body was stored before its head went out), then a hit', async () => {
    const path = `/whole-length-${++objects}.bin`;
    const bytes = patternBytes(objects, STORED_KNOWN_BYTES);
    origin.answer(path, { status: 200, headers: storable, body: bytes });
    const miss = await get(path);
    expect([miss.status, miss.complete, sha256(miss.body)]).toEqual([200, true, sha256(bytes)]);
    expect(members(miss)).toEqual(['tiercache-shield; fwd=uri-miss; stored', 'tiercache-edge; fwd=uri-miss; stored']);
    await settle(300);
    expect(members(await get(path)).at(-1)).toMatch(/^tiercache-edge; hit/);
  });

  it('longer than is waited for: the miss goes out while the body arrives and says nothing of storing it; it is stored all the same', async () => {
    const path = `/whole-length-${++objects}.bin`;
    const bytes = patternBytes(objects, STORED_KNOWN_BYTES + 1);
    origin.answer(path, { status: 200, headers: storable, body: bytes });
    const miss = await get(path);
    expect([miss.status, miss.complete, sha256(miss.body)]).toEqual([200, true, sha256(bytes)]);
    expect(members(miss)).toEqual(['tiercache-shield; fwd=uri-miss', 'tiercache-edge; fwd=uri-miss']);
    await settle(300);
    const hit = await get(path);
    expect(members(hit)).toEqual(['tiercache-shield; fwd=uri-miss', expect.stringMatching(/^tiercache-edge; hit/)]);
    expect(sha256(hit.body)).toBe(sha256(bytes));
  });
});
