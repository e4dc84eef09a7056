import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batchEntry,
  batchName,
  batchValue,
  listedKey,
  MAX_METADATA_BYTES,
  snapshotEntry,
  snapshotName,
  snapshotValue,
} from '../../../shared/purge/purge-batch.ts';
import type { PurgeRecord } from '../../../shared/purge/purge-rules.ts';

const T0 = 1_800_000_000_000;
const record: fc.Arbitrary<PurgeRecord> = fc
  .record({
    kind: fc.constantFrom('url', 'prefix', 'tag', 'everything'),
    value: fc.string({ maxLength: 512 }),
    at: fc.integer({ min: T0 - 1e10, max: T0 + 1e10 }),
    soft: fc.boolean(),
  })
  .map(({ kind, value, at, soft }) => (soft ? { kind, value, at, soft: true } : { kind, value, at }));

describe('a batch as KV keeps it', () => {
  it('reads back exactly the records written, from its metadata when they fit and its value when not', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 60 }), fc.integer({ min: T0, max: T0 + 1e9 }), (records, time) => {
        const name = batchName(time, 'id');
        const { value, metadata } = batchEntry(records);
        expect(new TextEncoder().encode(JSON.stringify(metadata)).byteLength).toBeLessThanOrEqual(MAX_METADATA_BYTES);
        const listed = listedKey(name, metadata, Number.POSITIVE_INFINITY);
        expect(listed.kind).toBe('batch');
        expect(listed.time).toBe(time);
        const read = listed.kind === 'batch' ? (listed.records ?? batchValue(value)) : undefined;
        expect(read).toEqual(records);
      }),
    );
  });

  it('sorts newer keys first, batches and snapshots alike', () => {
    fc.assert(
      fc.property(fc.integer({ min: T0, max: T0 + 1e9 }), fc.integer({ min: 1, max: 1e9 }), (time, gap) => {
        expect(batchName(time + gap, 'a') < batchName(time, 'a')).toBe(true);
        expect(snapshotName(time + gap, 'a') < batchName(time, 'a')).toBe(true);
      }),
    );
  });

  it('reads a key that is not one of ours, or whose metadata is not a batch, as unreadable; never throws', () => {
    fc.assert(
      fc.property(fc.string(), fc.anything(), (name, metadata) => {
        const listed = listedKey(`purge:${name}`, metadata, T0);
        expect(['batch', 'snapshot', 'unreadable']).toContain(listed.kind);
      }),
    );
    expect(listedKey('other:1', {}, T0).kind).toBe('unreadable');
    expect(listedKey(batchName(T0, 'id'), { b: [['url', '/a']] }, T0 + 1).kind).toBe('unreadable');
    expect(batchValue('not json')).toBeUndefined();
    // A clock ahead of ours is not believed.
    expect(listedKey(batchName(T0 + 5000, 'id'), { b: [] }, T0).time).toBe(T0);
  });
});

describe('a snapshot as KV keeps it', () => {
  it('reads back its list, its floor and what it covers, with the snapshot it follows', () => {
    const records: PurgeRecord[] = [
      { kind: 'url', value: '/a', at: T0 },
      { kind: 'tag', value: 'blog', at: T0 - 5, soft: true },
    ];
    for (const vouchedSince of [-Infinity, T0 - 100]) {
      const { value, metadata } = snapshotEntry({ coveredUntil: T0, list: { records, vouchedSince } }, 'purge:prev');
      expect(snapshotValue(value)).toEqual({ coveredUntil: T0, list: { records, vouchedSince } });
      expect(listedKey(snapshotName(T0, 'id'), metadata, T0 + 1)).toEqual({
        kind: 'snapshot',
        name: snapshotName(T0, 'id'),
        time: T0,
        previous: 'purge:prev',
      });
    }
    expect(snapshotValue('{"coveredUntil": "soon"}')).toBeUndefined();
    expect(snapshotValue('')).toBeUndefined();
  });
});
