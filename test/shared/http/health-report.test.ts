import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canServe, ORIGIN_STATES, readShieldHealth } from '../../../shared/http/health-report.ts';

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
