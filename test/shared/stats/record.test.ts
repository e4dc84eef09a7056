import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cacheStatusMember } from '../../../shared/http/cache-status.ts';
import {
  keyPrefix,
  lastHost,
  MAX_KEY_PREFIX,
  memoryHitRecord,
  outcomeOf,
  readAheadCounted,
  recordedHost,
  slicesOf,
  type TierRecord,
  tierRecord,
} from '../../../shared/stats/record.ts';
import { tier } from '../../../shared/tiers/tiers.ts';

describe("outcomeOf: what a tier's Cache-Status member (RFC 9211 §2) says it did", () => {
  it('hit (§2.1), miss (§2.2 uri-miss, vary-miss, miss, partial)', () => {
    expect(outcomeOf(200, { hit: true, ttl: 59 })).toEqual({ outcome: 'hit' });
    for (const fwd of ['uri-miss', 'vary-miss', 'miss', 'partial'] as const)
      expect(outcomeOf(200, { fwd, stored: true })).toEqual({ outcome: 'miss' });
  });

  it('fwd=stale with fwd-status=304 is a revalidation; with 200 a refetch (a miss)', () => {
    expect(outcomeOf(200, { fwd: 'stale', fwdStatus: 304 })).toEqual({ outcome: 'revalidated' });
    expect(outcomeOf(200, { fwd: 'stale', fwdStatus: 200 })).toEqual({ outcome: 'miss' });
  });

  it('a stale copy served (RFC 5861) is stale, whichever way it is reported', () => {
    expect(outcomeOf(200, { hit: true, ttl: -5, detail: 'stale-while-revalidate' })).toEqual({
      outcome: 'stale',
      reason: 'stale-while-revalidate',
    });
    expect(outcomeOf(200, { fwd: 'stale', fwdStatus: 503, detail: 'stale-if-error' })).toEqual({
      outcome: 'stale',
      reason: 'stale-if-error',
    });
  });

  it('collapsed (§2.6) before anything else a waiting request reports', () => {
    expect(outcomeOf(200, { fwd: 'stale', collapsed: true })).toEqual({ outcome: 'collapsed' });
    expect(outcomeOf(200, { fwd: 'uri-miss', collapsed: true })).toEqual({ outcome: 'collapsed' });
  });

  it("bypass: fwd=bypass, method, request, with the detail as reason; a tier's own refusal (no hit, no fwd)", () => {
    expect(outcomeOf(200, { fwd: 'method' })).toEqual({ outcome: 'bypass', reason: 'method' });
    expect(outcomeOf(200, { fwd: 'bypass', detail: 'no-store' })).toEqual({ outcome: 'bypass', reason: 'no-store' });
    expect(outcomeOf(405, { detail: 'refused' })).toEqual({ outcome: 'bypass', reason: 'refused' });
    expect(outcomeOf(400, {})).toEqual({ outcome: 'bypass', reason: 'refused' });
  });

  it('any 5xx is an error, its reason the detail (or the status), the slice counts dropped from it', () => {
    expect(outcomeOf(502, { fwd: 'miss', detail: 'origin-unreachable' })).toEqual({
      outcome: 'error',
      reason: 'origin-unreachable',
    });
    expect(outcomeOf(503, { fwd: 'miss' })).toEqual({ outcome: 'error', reason: 'status-503' });
    expect(outcomeOf(504, { detail: 'origin-timeout slices 0/1' })).toEqual({
      outcome: 'error',
      reason: 'origin-timeout',
    });
  });

  it("RFC 9111 §5.2.1.7: a 504 for only-if-cached with nothing stored is the client's bypass, not an error of ours", () => {
    expect(outcomeOf(504, { detail: 'only-if-cached' })).toEqual({ outcome: 'bypass', reason: 'only-if-cached' });
    // Only the tier's own answer to that directive: a 504 that went forward, or another 5xx so named, is still an
    // error.
    expect(outcomeOf(504, { fwd: 'miss', detail: 'only-if-cached' })).toEqual({
      outcome: 'error',
      reason: 'only-if-cached',
    });
    expect(outcomeOf(502, { detail: 'only-if-cached' })).toEqual({ outcome: 'error', reason: 'only-if-cached' });
  });

  it('bounds a reason to a short token whatever the detail holds', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (detail) => {
        const { reason } = outcomeOf(500, { detail });
        expect(reason).toMatch(/^[A-Za-z0-9_.:/-]{1,40}$/);
      }),
    );
  });
});

describe('slicesOf', () => {
  it('reads "slices h/c of t": h hits of c looked up', () => {
    expect(slicesOf({ detail: 'slices 3/4 of 9' })).toEqual({ sliced: true, slicesHit: 3, slicesMissed: 1 });
    expect(slicesOf({ detail: 'stale-while-revalidate slices 0/2' })).toEqual({
      sliced: true,
      slicesHit: 0,
      slicesMissed: 2,
    });
    expect(slicesOf({ hit: true })).toEqual({ sliced: false, slicesHit: 0, slicesMissed: 0 });
    expect(slicesOf(undefined)).toEqual({ sliced: false, slicesHit: 0, slicesMissed: 0 });
  });
});

describe('recordedHost, keyPrefix: bounded and without secrets', () => {
  it('keeps a host name lower-case with its port; anything else is (invalid)', () => {
    expect(recordedHost('CDN.Example:8443')).toBe('cdn.example:8443');
    expect(recordedHost('a'.repeat(65))).toBe('(invalid)');
    for (const host of ['<script>', 'a b', 'host:99999x', '']) expect(recordedHost(host)).toBe('(invalid)');
    fc.assert(
      fc.property(fc.string(), (host) => {
        expect(recordedHost(host)).toMatch(/^([a-z0-9.-]+(:\d{1,5})?|\(invalid\))$/);
      }),
    );
  });

  it('records a host the same when it remembers the last one (lastHost) as when it checks each anew', () => {
    const last = lastHost();
    fc.assert(
      fc.property(fc.array(fc.constantFrom('', 'CDN.example', 'cdn.example', '<script>', 'a b', 'h:1')), (hosts) => {
        for (const host of hosts) expect(recordedHost(host, last), host).toBe(recordedHost(host));
      }),
    );
  });

  it('never keeps a query, and cuts a path to MAX_KEY_PREFIX characters', () => {
    expect(keyPrefix('/a.png?token=secret')).toBe('/a.png');
    expect(keyPrefix(`/${'x'.repeat(200)}`)).toHaveLength(MAX_KEY_PREFIX);
    fc.assert(
      fc.property(fc.string(), fc.string(), (path, query) => {
        const kept = keyPrefix(`${path.replace(/\?/g, '')}?${query}`);
        expect(kept.includes('?')).toBe(false);
        expect(kept.length).toBeLessThanOrEqual(MAX_KEY_PREFIX);
      }),
    );
  });
});

describe('tierRecord', () => {
  const base = {
    method: 'GET',
    host: 'cdn.example',
    path: '/video.mp4?sig=abc',
    bytesFromNextHop: 8,
    bytesFromOrigin: 8,
    at: 1,
    ttfbMs: 2,
    durationMs: 5,
  };

  it("reads its own tier's member only: the shield's hit is the edge's miss", () => {
    const headers = new Headers({
      'cache-status': `${cacheStatusMember(tier('shield').statusMember, { hit: true })}, ${cacheStatusMember(tier('edge').statusMember, { fwd: 'uri-miss', detail: 'slices 1/3' })}`,
      'content-length': '100',
    });
    const edge = tierRecord({ ...base, tier: 'edge', status: 206, headers });
    expect(edge).toEqual({
      tier: 'edge',
      outcome: 'miss',
      status: 206,
      method: 'GET',
      host: 'cdn.example',
      keyPrefix: '/video.mp4',
      bytesSent: 100,
      bytesFromNextHop: 8,
      bytesFromOrigin: 8,
      ttfbMs: 2,
      durationMs: 5,
      sliced: true,
      slicesHit: 1,
      slicesMissed: 2,
      departed: false,
      at: 1,
    });
    expect(tierRecord({ ...base, tier: 'shield', status: 206, headers }).outcome).toBe('hit');
  });

  it('a memory hit is a 200 GET hit with nothing fetched, its host and path bounded as any', () => {
    expect(memoryHitRecord({ host: 'CDN.Example', path: '/a.png?sig=x', bytes: 7 }, 10, 0)).toEqual({
      tier: 'edge',
      outcome: 'hit',
      status: 200,
      method: 'GET',
      host: 'cdn.example',
      keyPrefix: '/a.png',
      bytesSent: 7,
      bytesFromNextHop: 0,
      bytesFromOrigin: 0,
      ttfbMs: 0,
      durationMs: 0,
      sliced: false,
      slicesHit: 0,
      slicesMissed: 0,
      departed: false,
      at: 10,
    });
  });

  it("takes the bytes sent as counted when they are given (a body without a Content-Length, a warm), the framing's otherwise", () => {
    const headers = new Headers({ 'cache-status': cacheStatusMember(tier('edge').statusMember, { fwd: 'uri-miss' }) });
    expect(tierRecord({ ...base, tier: 'edge', status: 200, headers, bytesSent: 4321 }).bytesSent).toBe(4321);
    expect(tierRecord({ ...base, tier: 'edge', status: 200, headers }).bytesSent).toBe(0);
  });

  it("an answer with no member of its tier is that tier's refusal (or an error at 5xx)", () => {
    const headers = new Headers();
    expect(tierRecord({ ...base, tier: 'edge', status: 403, headers })).toMatchObject({
      outcome: 'bypass',
      reason: 'refused',
    });
    expect(tierRecord({ ...base, tier: 'edge', status: 500, headers })).toMatchObject({
      outcome: 'error',
      reason: 'status-500',
    });
  });
});

describe('readAheadCounted: each slice the edge read ahead counted once at the shield, with what it was', () => {
  const record = (outcome: TierRecord['outcome'], bytesFromNextHop: number, bytesSent = 0): TierRecord => ({
    tier: 'shield',
    outcome,
    status: outcome === 'error' ? 502 : 200,
    method: 'GET',
    host: 'cdn.example',
    keyPrefix: '/big.bin',
    bytesSent,
    bytesFromNextHop,
    bytesFromOrigin: bytesFromNextHop,
    ttfbMs: 0,
    durationMs: 0,
    sliced: true,
    slicesHit: outcome === 'hit' ? 1 : 0,
    slicesMissed: outcome === 'hit' ? 0 : 1,
    departed: false,
    at: 0,
  });

  it('the warm carries the request: counted when it stored the slice, a miss that fetched it or a hit that found it', () => {
    expect(readAheadCounted(record('miss', 1000, 1000), 'warm', true)).toBe(true);
    expect(readAheadCounted(record('hit', 0, 1000), 'warm', true)).toBe(true);
  });

  it('a warm that stored nothing is counted only for what must not vanish: origin bytes, an error', () => {
    expect(readAheadCounted(record('miss', 0), 'warm', false)).toBe(false);
    expect(readAheadCounted(record('hit', 0), 'warm', false)).toBe(false);
    expect(readAheadCounted(record('miss', 700), 'warm', false)).toBe(true);
    expect(readAheadCounted(record('error', 0), 'warm', false)).toBe(true);
  });

  it('the copy answered from what the warm stored is counted with the warm; a copy that had to fetch again, or failed, is a request of its own', () => {
    expect(readAheadCounted(record('hit', 0, 1000), 'copy', false)).toBe(false);
    expect(readAheadCounted(record('miss', 1000, 1000), 'copy', false)).toBe(true);
    expect(readAheadCounted(record('collapsed', 0, 1000), 'copy', false)).toBe(true);
    expect(readAheadCounted(record('error', 0), 'copy', false)).toBe(true);
  });
});
