// RFC 9111 §3.3–3.4 in front of a site that serves byte ranges (ORIGIN_KIND=http): the parts
// of a representation the origin sent for clients' ranges are stored (as slices, pinned to
// its strong ETag) and reused for later ranges inside them, and stored parts combine to
// answer a range that spans them; only the missing parts are asked for.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, type Scripted, startAnyOrigin } from './any-origin.ts';
import { type Answer, cacheStatus, request, settle } from './fixture.ts';

const MiB = 1024 * 1024;
let origin: AnyOrigin;
let stack: Stack;
const get = (path: string, range: string): Promise<Answer> => request(new URL(path, stack.url), { headers: { range } });
const edge = (answer: Answer): string[] => cacheStatus(answer).find((member) => member[0] === 'tiercache-edge') ?? [];

/** A site's ranged answers for `body`, as a static server gives them. */
function ranged(body: Uint8Array, etag: string): (r: { headers: Record<string, string> }) => Scripted {
  return (r) => {
    const m = /^bytes=(\d+)-(\d*)$/.exec(r.headers.range ?? '');
    const headers = {
      'cache-control': 'max-age=600',
      etag,
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
    };
    if (m === null) return { status: 200, headers, body };
    const start = Number(m[1]);
    const end = Math.min(m[2] ? Number(m[2]) : body.length - 1, body.length - 1);
    return {
      status: 206,
      headers: { ...headers, 'content-range': `bytes ${start}-${end}/${body.length}` },
      body: body.subarray(start, end + 1),
    };
  };
}

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({
    config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't', SLICE_SIZE: String(MiB) },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

describe('RFC 9111 §3.3–3.4 — partial content', () => {
  const body = Uint8Array.from({ length: 4 * MiB }, (_, i) => (i * 31 + (i >> 11)) % 251);
  const bytes = (start: number, end: number): string => Buffer.from(body.subarray(start, end + 1)).toString('latin1');

  it('§3.3: the part fetched for a range is stored and answers a later range inside it', async () => {
    origin.answer('/inside.bin', ranged(body, '"inside"'));
    const first = await get('/inside.bin', 'bytes=100-199');
    expect([first.status, Buffer.from(first.body).toString('latin1')]).toEqual([206, bytes(100, 199)]);
    expect(origin.receivedFor('/inside.bin').map((r) => r.headers.range)).toEqual([`bytes=0-${MiB - 1}`]);
    await settle();
    const later = await get('/inside.bin', 'bytes=5000-9999');
    expect(Buffer.from(later.body).toString('latin1')).toBe(bytes(5000, 9999));
    expect(edge(later)[1]).toBe('hit');
    expect(origin.receivedFor('/inside.bin')).toHaveLength(1);
  });

  it('§3.4: stored parts combine to answer a range that spans them; only the missing part is asked for', async () => {
    origin.answer('/spans.bin', ranged(body, '"spans"'));
    await get('/spans.bin', 'bytes=10-20');
    await get('/spans.bin', `bytes=${2 * MiB + 10}-${2 * MiB + 20}`);
    await settle();
    const asked = origin.receivedFor('/spans.bin').length;
    const spanning = await get('/spans.bin', `bytes=${MiB - 10}-${2 * MiB + 10}`);
    expect(spanning.status).toBe(206);
    expect(Buffer.from(spanning.body).toString('latin1')).toBe(bytes(MiB - 10, 2 * MiB + 10));
    expect(edge(spanning)[1]).toBe('fwd=partial');
    // The slice between the two stored ones, and nothing else, pinned to the version stored.
    const more = origin.receivedFor('/spans.bin').slice(asked);
    expect(more.map((r) => [r.headers.range, r.headers['if-match']])).toEqual([
      [`bytes=${MiB}-${2 * MiB - 1}`, '"spans"'],
    ]);
    await settle();
    const again = await get('/spans.bin', `bytes=0-${3 * MiB - 1}`);
    expect(Buffer.from(again.body).toString('latin1')).toBe(bytes(0, 3 * MiB - 1));
    expect(edge(again)[1]).toBe('hit');
    expect(origin.receivedFor('/spans.bin').length).toBe(asked + 1);
  });

  it('§4.1 with §3.4: a sliced object that varies keeps its slices per variant', async () => {
    const fr = Uint8Array.from({ length: 3 * MiB }, (_, i) => (i * 7) % 253);
    const de = Uint8Array.from({ length: 3 * MiB }, (_, i) => (i * 13 + 1) % 241);
    const byLanguage = { fr: ranged(fr, '"fr"'), de: ranged(de, '"de"') };
    origin.answer('/varies.bin', (r) => {
      const answer = (r.headers['accept-language'] === 'de' ? byLanguage.de : byLanguage.fr)(r);
      return { ...answer, headers: { ...answer.headers, vary: 'Accept-Language' } };
    });
    const ask = (language: string, range: string): Promise<Answer> =>
      request(new URL('/varies.bin', stack.url), { headers: { range, 'accept-language': language } });
    const span = `bytes=${MiB - 5}-${MiB + 5}`;
    const expected = (body: Uint8Array): string => Buffer.from(body.subarray(MiB - 5, MiB + 6)).toString('latin1');
    expect(Buffer.from((await ask('fr', span)).body).toString('latin1')).toBe(expected(fr));
    expect(Buffer.from((await ask('de', span)).body).toString('latin1')).toBe(expected(de));
    await settle();
    const asked = origin.receivedFor('/varies.bin').length;
    const [frAgain, deAgain] = [await ask('fr', span), await ask('de', span)];
    expect([Buffer.from(frAgain.body).toString('latin1'), Buffer.from(deAgain.body).toString('latin1')]).toEqual([
      expected(fr),
      expected(de),
    ]);
    expect([edge(frAgain)[1], edge(deAgain)[1]]).toEqual(['hit', 'hit']);
    expect(origin.receivedFor('/varies.bin')).toHaveLength(asked);
  });
});
