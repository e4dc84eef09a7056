import { describe, expect, it } from 'vitest';
import {
  eventsAdmission,
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

  it('bucket events take the secret in the push URL’s token, or as a bearer; a wrong one in either is refused', () => {
    expect(eventsAdmission('e', null, undefined)).toBe('disabled');
    expect(eventsAdmission('e', null, 'e')).toBe('admitted');
    expect(eventsAdmission(null, 'Bearer e', 'e')).toBe('admitted');
    // Pub/Sub's own OIDC token as the bearer beside the secret in the URL.
    expect(eventsAdmission('e', 'Bearer eyJhbGciOiJSUzI1NiJ9.x.y', 'e')).toBe('admitted');
    expect(eventsAdmission(null, null, 'e')).toBe('unauthorized');
    expect(eventsAdmission('', null, 'e')).toBe('unauthorized');
    expect(eventsAdmission('ee', 'Bearer x', 'e')).toBe('unauthorized');
    expect(eventsAdmission(null, `Basic ${btoa('x:e')}`, 'e')).toBe('unauthorized');
  });
});
