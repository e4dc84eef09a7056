import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addOperations,
  emptyOperations,
  mergeOperations,
  noPrefetches,
  noR2,
  prefetchesOf,
  r2CountsOf,
  type StoreOperations,
} from '../../../shared/stats/store-operations.ts';

const count = fc.nat(1_000_000);
const operationsArb: fc.Arbitrary<StoreOperations> = fc.record({
  flushes: fc.record({ edge: count, shield: count, r2: count }),
  rowsRead: count,
  rowsWritten: count,
  kvLists: fc.record({ edge: count, shield: count, r2: count }),
  kvWrites: count,
  kvReads: fc.record({ edge: count, shield: count, r2: count }),
  hedges: fc.record({ hedgesStarted: count, hedgesWon: count, hedgesLost: count, hedgeBytes: count }),
  prefetches: fc.record({
    prefetched: count,
    prefetchesUsed: count,
    prefetchesWasted: count,
    prefetchBytes: count,
    prefetchWastedBytes: count,
  }),
  r2: fc.record({ r2Gets: count, r2Puts: count, r2PutBytes: count, r2Lists: count, r2StoredByteSeconds: count }),
});

describe('mergeOperations', () => {
  it('is one Durable Object request from the sending tier, its KV requests under that tier, and the rows the store touched', () => {
    expect(mergeOperations('shield', { kvLists: 4, kvWrites: 2, kvReads: 5 }, { read: 3, written: 1 })).toEqual({
      flushes: { edge: 0, shield: 1, r2: 0 },
      rowsRead: 3,
      rowsWritten: 1,
      kvLists: { edge: 0, shield: 4, r2: 0 },
      kvWrites: 2,
      kvReads: { edge: 0, shield: 5, r2: 0 },
      hedges: { hedgesStarted: 0, hedgesWon: 0, hedgesLost: 0, hedgeBytes: 0 },
      prefetches: { prefetched: 0, prefetchesUsed: 0, prefetchesWasted: 0, prefetchBytes: 0, prefetchWastedBytes: 0 },
      r2: { r2Gets: 0, r2Puts: 0, r2PutBytes: 0, r2Lists: 0, r2StoredByteSeconds: 0 },
    });
  });

  it("carries the R2 tier's operations as they were counted", () => {
    const r2 = { r2Gets: 7, r2Puts: 2, r2PutBytes: 2_000_000, r2Lists: 1, r2StoredByteSeconds: 7.2e9 };
    const kv = { kvLists: 0, kvWrites: 0, kvReads: 0 };
    expect(mergeOperations('shield', kv, { read: 1, written: 1 }, undefined, undefined, r2).r2).toEqual(r2);
  });

  it("carries the shield's hedges as they were counted", () => {
    const hedges = { hedgesStarted: 3, hedgesWon: 2, hedgesLost: 1, hedgeBytes: 65_536 };
    expect(
      mergeOperations('shield', { kvLists: 0, kvWrites: 0, kvReads: 0 }, { read: 1, written: 1 }, hedges).hedges,
    ).toEqual(hedges);
  });

  it("carries the shield's prefetches as they were counted", () => {
    const prefetches = {
      prefetched: 5,
      prefetchesUsed: 3,
      prefetchesWasted: 1,
      prefetchBytes: 500_000,
      prefetchWastedBytes: 100_000,
    };
    const rows = { read: 1, written: 1 };
    const kv = { kvLists: 0, kvWrites: 0, kvReads: 0 };
    expect(mergeOperations('shield', kv, rows, undefined, prefetches).prefetches).toEqual(prefetches);
  });
});

describe('prefetchesOf', () => {
  it('reads the counts a batch says, each absent one (an earlier release) 0', () => {
    expect(prefetchesOf(undefined)).toEqual(noPrefetches());
    expect(prefetchesOf({ prefetched: 2, prefetchBytes: 40 })).toEqual({
      ...noPrefetches(),
      prefetched: 2,
      prefetchBytes: 40,
    });
  });
});

describe('r2CountsOf', () => {
  it('reads the counts a batch says, each absent one (an earlier release) 0', () => {
    expect(r2CountsOf(undefined)).toEqual(noR2());
    expect(r2CountsOf({ r2Gets: 3, r2StoredByteSeconds: 1.5 })).toEqual({
      ...noR2(),
      r2Gets: 3,
      r2StoredByteSeconds: 1.5,
    });
  });
});

describe('addOperations', () => {
  it('is commutative and associative, with none (a bucket stored before they were counted) as its identity', () => {
    fc.assert(
      fc.property(operationsArb, operationsArb, operationsArb, (a, b, c) => {
        expect(addOperations(a, b)).toEqual(addOperations(b, a));
        expect(addOperations(addOperations(a, b), c)).toEqual(addOperations(a, addOperations(b, c)));
        expect(addOperations(a, undefined)).toEqual(a);
        expect(addOperations(undefined, a)).toEqual(a);
        expect(addOperations(a, emptyOperations())).toEqual(a);
      }),
    );
  });

  it('adds the KV reads of each tier, a bucket stored before reads were counted adding none', () => {
    const edge = mergeOperations('edge', { kvLists: 1, kvWrites: 0, kvReads: 3 }, { read: 1, written: 1 });
    const shield = mergeOperations('shield', { kvLists: 1, kvWrites: 0, kvReads: 2 }, { read: 1, written: 1 });
    expect(addOperations(addOperations(edge, shield), edge).kvReads).toEqual({ edge: 6, shield: 2, r2: 0 });
    // As JSON from storage: a bucket of an earlier release has no kvReads field at all.
    const { kvReads: _, ...earlier } = mergeOperations(
      'edge',
      { kvLists: 7, kvWrites: 1, kvReads: 0 },
      { read: 2, written: 2 },
    );
    const sum = addOperations(earlier as StoreOperations, shield);
    expect(sum.kvReads).toEqual({ edge: 0, shield: 2, r2: 0 });
    expect(sum.kvLists).toEqual({ edge: 7, shield: 1, r2: 0 });
  });

  it('adds the hedges, a bucket stored before hedges were counted adding none', () => {
    const hedges = { hedgesStarted: 4, hedgesWon: 3, hedgesLost: 1, hedgeBytes: 100 };
    const shield = mergeOperations('shield', { kvLists: 0, kvWrites: 0, kvReads: 0 }, { read: 1, written: 1 }, hedges);
    const { hedges: _, ...earlier } = mergeOperations(
      'edge',
      { kvLists: 1, kvWrites: 0, kvReads: 0 },
      { read: 1, written: 1 },
    );
    expect(addOperations(addOperations(earlier as StoreOperations, shield), shield).hedges).toEqual({
      hedgesStarted: 8,
      hedgesWon: 6,
      hedgesLost: 2,
      hedgeBytes: 200,
    });
  });

  it("adds the R2 tier's operations, a bucket stored before they were counted adding none", () => {
    const r2 = { r2Gets: 5, r2Puts: 1, r2PutBytes: 1000, r2Lists: 2, r2StoredByteSeconds: 3_600_000 };
    const kv = { kvLists: 0, kvWrites: 0, kvReads: 0 };
    const shield = mergeOperations('shield', kv, { read: 1, written: 1 }, undefined, undefined, r2);
    const { r2: _, ...earlier } = mergeOperations('edge', kv, { read: 1, written: 1 });
    expect(addOperations(addOperations(earlier as StoreOperations, shield), shield).r2).toEqual({
      r2Gets: 10,
      r2Puts: 2,
      r2PutBytes: 2000,
      r2Lists: 4,
      r2StoredByteSeconds: 7_200_000,
    });
  });
});
