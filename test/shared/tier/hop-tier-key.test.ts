// Where a tier behind another keeps an object (shared/tier/hop-tier-key.ts), and the target read back from that key:
// every key made reads back its own target, whatever the host and path hold; no other key reads back one.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hopTierKey, hopTierTarget } from '../../../shared/tier/hop-tier-key.ts';

/** Paths and queries as a parsed request target holds them: a path from "/", a query empty or from "?". */
const path = fc.string({ maxLength: 40 }).map((rest) => `/${rest}`);
const query = fc.option(
  fc.string({ maxLength: 20 }).map((rest) => `?${rest}`),
  { nil: '' },
);

describe('hopTierKey and hopTierTarget', () => {
  it('reads back the path and query of every key it made, whatever the host holds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), path, query, (host, targetPath, targetQuery) => {
        const key = hopTierKey('r2', host, { path: targetPath, query: targetQuery });
        expect(hopTierTarget('r2', key)).toBe(`${targetPath}${targetQuery}`);
      }),
    );
  });

  it("reads no target from another tier's key, nor from a key that is not one", () => {
    const key = hopTierKey('shield', 'cdn.example', { path: '/a.bin', query: '' });
    expect(hopTierTarget('shield', key)).toBe('/a.bin');
    expect(hopTierTarget('r2', key)).toBeUndefined();
    expect(hopTierTarget('r2', 'https://r2.tiercache.internal/cdn.example')).toBeUndefined();
    expect(hopTierTarget('r2', 'https://slice.tiercache.internal/x/1')).toBeUndefined();
  });
});
