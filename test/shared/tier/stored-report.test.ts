// withKnownStored (shared/tier/stored-report.ts): RFC 9211 §2.5 `stored` only of what was stored when the head goes
// out.

import { describe, expect, it } from 'vitest';
import type { WholeObject } from '../../../shared/tier/resolved.ts';
import { STORED_KNOWN_BYTES, type Storing, withKnownStored } from '../../../shared/tier/stored-report.ts';

const filled = (storing?: Storing): { resolved: WholeObject; storing?: Storing } => ({
  resolved: {
    kind: 'whole',
    status: 200,
    headers: new Headers(),
    body: null,
    age: 0,
    report: { fwd: 'uri-miss', stored: true },
    originAt: 0,
  },
  ...(storing === undefined ? {} : { storing }),
});

describe('withKnownStored', () => {
  it(`RFC 9211 §2.5: a body of at most ${STORED_KNOWN_BYTES} bytes is waited for, and says stored when it was`, async () => {
    let store: (stored: boolean) => void = () => undefined;
    const stored = new Promise<boolean>((resolve) => (store = resolve));
    let settled = false;
    const answer = withKnownStored(filled({ length: STORED_KNOWN_BYTES, stored })).then((done) => {
      settled = true;
      return done;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled, 'the head waits for the store').toBe(false);
    store(true);
    expect((await answer).resolved.report).toEqual({ fwd: 'uri-miss', stored: true });
  });

  it('RFC 9211 §2.5: a short body that was not stored (cut, or refused by the store) does not say stored', async () => {
    const answer = await withKnownStored(filled({ length: 10, stored: Promise.resolve(false) }));
    expect(answer.resolved.report.stored).toBe(false);
  });

  it('a longer body is not waited for, and does not say stored: that is not known when its head goes out', async () => {
    const never = new Promise<boolean>(() => undefined);
    const answer = await withKnownStored(filled({ length: STORED_KNOWN_BYTES + 1, stored: never }));
    expect(answer.resolved.report).toEqual({ fwd: 'uri-miss', stored: false });
  });

  it('leaves an answer whose body is not stored as it streams as it is (a held body says stored once known already)', async () => {
    const answer = filled();
    expect(await withKnownStored(answer)).toBe(answer);
  });
});
