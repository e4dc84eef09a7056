import { describe, expect, it } from 'vitest';
import type { PurgeRecord } from '../../../shared/purge/purge-rules.ts';
import { folderTag, urlTag } from '../../../shared/purge/workers-cache-purge.ts';
import {
  DEFAULT_RETRY_MS,
  MAX_PREFIXES_PER_CALL,
  MAX_TAGS_PER_CALL,
  retryAfterMs,
  retryInRequest,
  TRIES_IN_REQUEST,
  WAIT_IN_REQUEST_MS,
  zonePurgeCalls,
} from '../../../shared/purge/zone-purge.ts';

const at = 1_000;
const record = (kind: PurgeRecord['kind'], value: string): PurgeRecord => ({ kind, value, at });

describe('zonePurgeCalls', () => {
  it("makes a URL its path's tag, a tag itself, a folder prefix the zone's prefix on each host plus its folder's tag", () => {
    const calls = zonePurgeCalls(
      [record('url', '/a.txt?v=1'), record('tag', 'Blog'), record('prefix', '/img/'), record('prefix', '/doc')],
      ['cdn.example', 'Other.example'],
    );
    expect(calls).toEqual([
      { tags: [urlTag('/a.txt?v=1'), 'blog', folderTag('/img/')] },
      { prefixes: ['cdn.example/img/', 'other.example/img/', 'cdn.example/doc', 'other.example/doc'] },
    ]);
  });

  it('purges everything with one purge_everything, whatever else is named', () => {
    expect(zonePurgeCalls([record('url', '/a'), record('everything', '')], ['cdn.example'])).toEqual([
      { purge_everything: true },
    ]);
  });

  it(`batches to ${MAX_TAGS_PER_CALL} tags and ${MAX_PREFIXES_PER_CALL} prefixes a call, each value once`, () => {
    const urls = Array.from({ length: 1000 }, (_, index) => record('url', `/f${index}`));
    const calls = zonePurgeCalls([...urls, record('url', '/f0')], ['cdn.example']);
    expect(calls.map((call) => ('tags' in call ? call.tags.length : 0))).toEqual(Array(10).fill(100));
    expect(new Set(calls.flatMap((call) => ('tags' in call ? call.tags : []))).size).toBe(1000);
    const prefixes = Array.from({ length: 31 }, (_, index) => record('prefix', `/p${index}`));
    const prefixCalls = zonePurgeCalls(prefixes, ['cdn.example']);
    expect(prefixCalls.map((call) => ('prefixes' in call ? call.prefixes.length : 0))).toEqual([30, 1]);
  });

  it('makes no call when nothing is named', () => {
    expect(zonePurgeCalls([], ['cdn.example'])).toEqual([]);
  });
});

describe('retryAfterMs (RFC 9110 §10.2.3)', () => {
  const now = Date.parse('2026-12-02T12:00:00Z');
  it('reads delay-seconds and an HTTP-date', () => {
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs(' 7 ', now)).toBe(7000);
    expect(retryAfterMs('Wed, 02 Dec 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 02 Dec 2026 11:00:00 GMT', now)).toBe(0);
  });
  it(`waits ${DEFAULT_RETRY_MS} ms when there is none or it cannot be read`, () => {
    for (const value of [null, '', '-1', '1.5', 'soon', '12345678901'])
      expect(retryAfterMs(value, now), String(value)).toBe(DEFAULT_RETRY_MS);
  });
});

describe('retryInRequest', () => {
  it(`retries within ${TRIES_IN_REQUEST} tries and ${WAIT_IN_REQUEST_MS} ms of waiting, else queues`, () => {
    expect(retryInRequest(1, 0, 1000)).toBe(true);
    expect(retryInRequest(2, 1000, 2000)).toBe(true);
    expect(retryInRequest(TRIES_IN_REQUEST, 0, 0)).toBe(false);
    expect(retryInRequest(1, 0, WAIT_IN_REQUEST_MS + 1)).toBe(false);
    expect(retryInRequest(2, 2500, 1000)).toBe(false);
  });
});
