// urgentAtShield (shield/first-byte-urgency.ts): which of the edge's requests hold the shield's warms back, every kind.

import { describe, expect, it } from 'vitest';
import type { ReadAheadPart } from '../../shared/stats/record.ts';
import { urgentAtShield } from '../../shield/first-byte-urgency.ts';

describe('urgentAtShield', () => {
  const kinds: [ReadAheadPart | undefined, boolean, string][] = [
    [undefined, true, 'a slice at the reader, discovery, a plain GET or a HEAD: a client waits for it'],
    ['warm', false, 'a warm: nobody waits for its slice yet'],
    ['copy', false, 'a copy of what a warm stored: a hit here'],
  ];
  for (const [kind, urgent, why] of kinds) {
    it(`${urgent ? 'holds' : 'never holds'} warms for ${why}`, () => {
      expect(urgentAtShield(kind)).toBe(urgent);
    });
  }
});
