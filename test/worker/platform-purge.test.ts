import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/config.ts';
import { RECORDS_BOUND_BASIS } from '../../shared/purge/purge-bounds.ts';
import type { PurgeRecord } from '../../shared/purge/purge-rules.ts';
import { MAX_CALLS_PER_PURGE } from '../../shared/purge/zone-purge.ts';
import { purgePaths } from '../../worker/platform-purge.ts';
import type { ZonePurgePort } from '../../worker/zone-purge-client.ts';

const settings = {
  S3_ACCESS_KEY_ID: 'AKID',
  S3_SECRET_ACCESS_KEY: 'SECRET-KEY-VALUE',
  HOST_BUCKETS: 'a.example=site-a, b.example=site-b, c.example=site-c',
  CF_API_TOKEN: 'cf-token',
  CF_ZONE_ID: '0123456789abcdef0123456789abcdef',
};
const config = parseConfig(settings);
/** The edge's memory layer off: nothing the platform cannot reach holds a copy in another isolate. */
const memoryOff = parseConfig({ ...settings, MEMORY_CACHE_SIZE: '0' });
const AT = 1_800_000_000_000;

/** A port that accepts every call, counting them. */
function acceptingPort(): ZonePurgePort & { calls: number } {
  const port = {
    calls: 0,
    async fetch() {
      port.calls += 1;
      return Response.json({ success: true, errors: [], messages: [], result: { id: 'id' } });
    },
    async sleep() {},
    waitUntil() {},
    now: () => 0,
  };
  return port;
}

describe('purgePaths: how many calls one purge makes at the platform', () => {
  it('sends 1,000 URLs as ten calls, and the bound is the platform’s with the memory layer off', async () => {
    const records = Array.from({ length: 1000 }, (_, i): PurgeRecord => ({ kind: 'url', value: `/f/${i}`, at: AT }));
    const port = acceptingPort();
    const paths = await purgePaths(records, new URL('https://a.example/__tiercache/purge'), memoryOff, port);
    expect(port.calls).toBe(10);
    expect(paths.reachesEveryLocationWithin).toBe('150ms');
    expect(paths.paths.records.reaches).toEqual(['edge Cache API', 'shield Cache API']);
  });

  it('states the records’ bound with the memory layer on (the default): the platform cannot reach an isolate’s memory', async () => {
    const records: PurgeRecord[] = [{ kind: 'prefix', value: '/img/', at: AT }];
    const paths = await purgePaths(records, new URL('https://a.example/__tiercache/purge'), config, acceptingPort());
    expect(paths.paths.platform).toMatchObject({
      sent: true,
      reachesEveryLocationWithin: '150ms',
      reaches: ['edge Cache API'],
    });
    expect(paths.paths.records).toEqual({
      reachesEveryLocationWithin: '65s',
      reaches: ['edge memory', 'edge Cache API', 'shield Cache API'],
      bound: 'typical',
      boundBasis: RECORDS_BOUND_BASIS,
    });
    expect(paths.reachesEveryLocationWithin).toBe('65s');
  });

  it(`leaves a purge of more than ${MAX_CALLS_PER_PURGE} calls to the records, saying why, and sends none`, async () => {
    // 1,000 prefixes on four hosts (the purge's and HOST_BUCKETS'): 134 prefix calls and 10 folder-tag calls.
    const records = Array.from({ length: 1000 }, (_, i): PurgeRecord => ({ kind: 'prefix', value: `/p${i}/`, at: AT }));
    const port = acceptingPort();
    const paths = await purgePaths(records, new URL('https://cdn.example/__tiercache/purge'), config, port);
    expect(port.calls).toBe(0);
    expect(paths.paths.platform).toEqual({
      sent: false,
      reason: `144 calls (prefixes on 4 hosts) would pass the ${MAX_CALLS_PER_PURGE} one purge makes`,
      calls: [],
    });
    expect(paths.reachesEveryLocationWithin).toBe('65s');
  });
});
