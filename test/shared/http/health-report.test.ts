import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canServe,
  LOCAL_COLO,
  ORIGIN_STATES,
  readShieldHealth,
  tierLocation,
} from '../../../shared/http/health-report.ts';

const good = {
  shield: 'ok',
  origin: 'credentials',
  detail: 'the origin refused the credentials',
  probe: 'HEALTH_KEY',
  probeMs: 12,
  age: 3,
  version: '0.1.0',
};

describe('readShieldHealth: the shield health answer as the edge reads it', () => {
  it('takes the finding fields of a well-formed answer, and nothing else', () => {
    expect(readShieldHealth(good)).toEqual({
      origin: 'credentials',
      detail: 'the origin refused the credentials',
      probe: 'HEALTH_KEY',
      probeMs: 12,
      age: 3,
    });
  });

  it('refuses an unknown state or probe, a missing detail, and counts that are not counts', () => {
    for (const bad of [
      { origin: 'fine' },
      { probe: 'guess' },
      { detail: 7 },
      { probeMs: -1 },
      { age: 1.5 },
      { probeMs: '12' },
    ]) {
      expect(readShieldHealth({ ...good, ...bad }), JSON.stringify(bad)).toBeUndefined();
    }
    for (const notAnAnswer of [undefined, null, 'ok', 503, [good]])
      expect(readShieldHealth(notAnAnswer)).toBeUndefined();
  });

  it("takes the shield's purge list state when it is one, and leaves out one that is not", () => {
    for (const purgeList of [
      { state: 'read', age: 2 },
      { state: 'unread', failing: 40 },
      { state: 'failing', failing: 10, age: 75 },
      { state: 'not read yet' },
      { state: 'unbound' },
    ])
      expect(readShieldHealth({ ...good, purgeList })?.purgeList, JSON.stringify(purgeList)).toEqual(purgeList);
    for (const purgeList of [{ state: 'read' }, { state: 'unread', failing: -1 }, { state: 'gone' }, 'read', null])
      expect(readShieldHealth({ ...good, purgeList }), JSON.stringify(purgeList)).not.toHaveProperty('purgeList');
  });

  it('takes which cache the shield has when it says one it may have, and leaves out anything else', () => {
    for (const cache of ['workers-cache', 'cache-api'])
      expect(readShieldHealth({ ...good, cache })?.cache, cache).toBe(cache);
    for (const cache of ['memory', '', 7, null, { shield: 'cache-api' }])
      expect(readShieldHealth({ ...good, cache }), JSON.stringify(cache)).not.toHaveProperty('cache');
  });

  it('never throws, whatever JSON arrives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const read = readShieldHealth(value);
        if (read !== undefined) expect(ORIGIN_STATES).toContain(read.origin);
      }),
    );
  });
});

describe('canServe', () => {
  it('is true for ok only', () => {
    expect(ORIGIN_STATES.filter(canServe)).toEqual(['ok']);
  });
});

describe('tierLocation and the shield colo: where a tier ran', () => {
  const withCf = (cf: unknown): Request => Object.assign(new Request('https://cdn.example/'), { cf });

  it("is request.cf.colo, Cloudflare's data center code, and LOCAL_COLO where there is none or it is no code", () => {
    expect(tierLocation(withCf({ colo: 'AMS' }))).toBe('AMS');
    expect(tierLocation(new Request('https://cdn.example/'))).toBe(LOCAL_COLO);
    expect(tierLocation(withCf({ colo: 42 }))).toBe(LOCAL_COLO);
    expect(tierLocation(withCf({ colo: 'AMS\n<script>' }))).toBe(LOCAL_COLO);
  });

  it("reads the shield's colo when it is a code, and leaves out one that is not", () => {
    expect(readShieldHealth({ ...good, colo: 'FRA' })?.colo).toBe('FRA');
    expect(readShieldHealth({ ...good, colo: 'F R A' })).not.toHaveProperty('colo');
    expect(readShieldHealth(good)).not.toHaveProperty('colo');
  });
});
