// shared/slices/subrequest-costs.ts: the sums docs/slices.md states to operators.

import { describe, expect, it } from 'vitest';
import {
  FETCH,
  FILL_STORE,
  LOOKUP,
  READ_AHEAD,
  SLICE_READ,
  WARMED_SLICE,
} from '../../../shared/slices/subrequest-costs.ts';

// docs/slices.md ("Platform limits") states these sums: a change here is a change there.
describe('the subrequest costs of a slice', () => {
  it('a slice the edge reads ahead costs 5: its lookup, the warm, the copy, its put, the read back', () => {
    expect(READ_AHEAD).toBe(4);
    expect(SLICE_READ).toBe(5);
  });

  it("a slice the shield stores for the edge's warm costs 3: its lookup, the origin's fetch, the put", () => {
    expect(WARMED_SLICE).toBe(3);
  });

  it('a slice read as it comes costs 4: its lookup, the fetch, the put and a read back', () => {
    expect(LOOKUP + FETCH + FILL_STORE).toBe(4);
  });
});
