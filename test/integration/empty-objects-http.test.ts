// Empty files (0 bytes) of a plain HTTP site (ORIGIN_KIND=http) are ordinary objects (docs/caching.md#empty-objects):
// whether the site answers a Range on one with 416 `bytes */0` (nginx, Go), ignores Range with a 200 of
// Content-Length 0 (Python's http.server), or sends the empty body chunked, without a Content-Length, GET answers
// 200 with Content-Length 0, HEAD the same headers, a byte range 416 (RFC 9110 §14.1.2, §15.5.17), and both tiers
// store and hit it, with conditions.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { type AnyOrigin, type Received, type Scripted, startAnyOrigin } from './any-origin.ts';
import { type Answer, cacheStatus, request, settle } from './fixture.ts';

const ETAG = '"empty-1"';
/** Uncompressed, so that the answer's own Content-Length shows (workerd gzips text types for clients that accept it). */
const IDENTITY = { 'accept-encoding': 'identity' };
const FILE_HEADERS = {
  etag: ETAG,
  'last-modified': 'Mon, 07 Dec 2026 10:00:00 GMT',
  'content-type': 'text/html',
  'cache-control': 'max-age=600',
};

/** A site answering a Range on its empty file with 416 `bytes *\/0`, as nginx and Go's file server do. */
function refusesRanges(r: Received): Scripted {
  if (r.headers.range === undefined)
    return { status: 200, headers: { ...FILE_HEADERS, 'accept-ranges': 'bytes', 'content-length': '0' }, body: '' };
  return { status: 416, headers: { 'content-range': 'bytes */0', 'content-type': 'text/html' }, body: '' };
}
/** A site that ignores Range: 200 with Content-Length 0, as Python's http.server does. */
const IGNORES_RANGES: Scripted = { status: 200, headers: { ...FILE_HEADERS, 'content-length': '0' }, body: '' };
/** A site sending the empty body chunked: no Content-Length. */
const CHUNKED: Scripted = { status: 200, headers: { ...FILE_HEADERS, 'transfer-encoding': 'chunked' }, body: '' };

let origin: AnyOrigin;
let stack: Stack;
const get = (path: string, init?: RequestInit): Promise<Answer> => request(new URL(path, stack.url), init);
const edgeMember = (answer: Answer): string[] => cacheStatus(answer).at(-1) ?? [];

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({ config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN: 't' } });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

function expectEmptyFile(answer: Answer): void {
  expect(answer.status).toBe(200);
  expect(answer.body.byteLength).toBe(0);
  expect(answer.headers.get('content-length')).toBe('0');
  expect(answer.headers.get('etag')).toBe(ETAG);
  expect(answer.headers.get('content-type')).toBe('text/html');
  expect(answer.headers.get('last-modified')).toBe(FILE_HEADERS['last-modified']);
}

describe('an empty file of an HTTP origin', () => {
  const sites: [string, Scripted | ((r: Received) => Scripted)][] = [
    ['answers a Range on it with 416 bytes */0', refusesRanges],
    ['ignores Range and answers 200 with Content-Length 0', IGNORES_RANGES],
    ['sends it chunked, without a Content-Length', CHUNKED],
  ];
  for (const [i, [site, script]] of sites.entries()) {
    it(`from a site that ${site}: 200 with Content-Length 0, stored at both tiers, HEAD alike, a range 416, conditions`, async () => {
      const path = `/empty-${i}.html`;
      origin.answer(path, script);
      const miss = await get(path, { headers: IDENTITY });
      expect(miss.status).toBe(200);
      expect(miss.body.byteLength).toBe(0);
      expect(cacheStatus(miss).map((m) => m.slice(0, 2))).toEqual([
        ['tiercache-shield', 'fwd=uri-miss'],
        ['tiercache-edge', 'fwd=uri-miss'],
      ]);
      await settle();
      const asked = origin.receivedFor(path).length;

      // The shield holds it too: an edge that lost its copy (before a hit put it in the edge's memory) asks the shield.
      const edge = await (await stack.mf.getCaches()).open('tiercache-edge');
      expect(await edge.delete(new URL(path, stack.url).href)).toBe(true);
      const fromShield = await get(path, { headers: IDENTITY });
      expectEmptyFile(fromShield);
      expect(cacheStatus(fromShield)[0]?.slice(0, 2)).toEqual(['tiercache-shield', 'hit']);
      await settle();

      const hit = await get(path, { headers: IDENTITY });
      expectEmptyFile(hit);
      expect(edgeMember(hit).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
      const head = await get(path, { method: 'HEAD', headers: IDENTITY });
      expectEmptyFile(head);
      expect(edgeMember(head).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
      const range = await get(path, { headers: { range: 'bytes=0-' } });
      expect(range.status).toBe(416);
      expect(range.headers.get('content-range')).toBe('bytes */0');
      const notModified = await get(path, { headers: { 'if-none-match': ETAG } });
      expect(notModified.status).toBe(304);
      expect(origin.receivedFor(path)).toHaveLength(asked);
    });
  }
});
