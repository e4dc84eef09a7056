import { describe, expect, it } from 'vitest';
import {
  fromTheEdge,
  purgeAdmission,
  statsAdmission,
  throughTheFront,
} from '../../../shared/admission/tier-credentials.ts';

describe('the tiers’ own doors', () => {
  it('the shield admits only the edge’s credential, and nobody when none is set', () => {
    expect(fromTheEdge('t', 't')).toBe(true);
    expect(fromTheEdge('u', 't')).toBe(false);
    expect(fromTheEdge(null, 't')).toBe(false);
    expect(fromTheEdge('t', undefined)).toBe(false);
  });

  it('the edge behind a local front admits only what came through it; deployed, there is no front', () => {
    expect(throughTheFront('f', 'f')).toBe(true);
    expect(throughTheFront(null, 'f')).toBe(false);
    expect(throughTheFront(null, undefined)).toBe(true);
  });

  it('purge takes the token as a bearer only', () => {
    expect(purgeAdmission('Bearer p', undefined)).toBe('disabled');
    expect(purgeAdmission('Bearer p', 'p')).toBe('admitted');
    expect(purgeAdmission(`Basic ${btoa('x:p')}`, 'p')).toBe('unauthorized');
    expect(purgeAdmission(null, 'p')).toBe('unauthorized');
  });

  it('stats take the token as a bearer or as Basic’s password', () => {
    expect(statsAdmission('Bearer s', undefined)).toBe('disabled');
    expect(statsAdmission('Bearer s', 's')).toBe('admitted');
    expect(statsAdmission(`Basic ${btoa('anyone:s')}`, 's')).toBe('admitted');
    expect(statsAdmission('Bearer x', 's')).toBe('unauthorized');
  });
});
