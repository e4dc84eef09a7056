import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addOperations,
  emptyOperations,
  mergeOperations,
  type StoreOperations,
} from '../../../shared/stats/store-operations.ts';

const count = fc.nat(1_000_000);
const operationsArb: fc.Arbitrary<StoreOperations> = fc.record({
  flushes: fc.record({ edge: count, shield: count }),
  rowsRead: count,
  rowsWritten: count,
  kvLists: fc.record({ edge: count, shield: count }),
  kvWrites: count,
});

describe('mergeOperations', () => {
  it('is one Durable Object request from the sending tier, its KV requests under that tier, and the rows the store touched', () => {
    expect(mergeOperations('shield', { kvLists: 4, kvWrites: 2 }, { read: 3, written: 1 })).toEqual({
      flushes: { edge: 0, shield: 1 },
      rowsRead: 3,
      rowsWritten: 1,
      kvLists: { edge: 0, shield: 4 },
      kvWrites: 2,
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
});
