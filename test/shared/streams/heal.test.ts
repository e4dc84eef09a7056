import { describe, expect, it } from 'vitest';
import { VersionChanged } from '../../../shared/http/errors.ts';
import { type Heal, Reopenings } from '../../../shared/streams/heal.ts';
import { patternBytes, streamOf } from '../../streams.ts';

const bytes = patternBytes;
const never = (): boolean => false;

/**
 * A Heal reopening `object` from the offset asked for, recording each offset; `fail` makes a reopening throw instead.
 */
function healOf(
  object: Uint8Array,
  options: { attempts?: number; backoffMs?: number; fail?: (attempt: number) => Error | undefined } = {},
): Heal & { offsets: number[] } {
  const offsets: number[] = [];
  return {
    offsets,
    attempts: options.attempts ?? 3,
    backoffMs: options.backoffMs ?? 1,
    reopen: async (offset) => {
      offsets.push(offset);
      const failure = options.fail?.(offsets.length);
      if (failure !== undefined) throw failure;
      return streamOf(object.slice(offset));
    },
  };
}

async function firstBytes(reopenings: Reopenings, fault: Error, offset: number): Promise<Uint8Array | undefined> {
  const reader = await reopenings.reopened(fault, offset, never);
  return (await reader.read(new Uint8Array(3))).value;
}

describe('Reopenings', () => {
  it('reopens the body from the offset reached, as a reader of it', async () => {
    const object = bytes(20);
    const heal = healOf(object);
    expect(await firstBytes(new Reopenings(heal), new Error('reset'), 7)).toEqual(object.slice(7, 10));
    expect(heal.offsets).toEqual([7]);
  });

  it('without a heal, the fault stands', async () => {
    const fault = new Error('reset');
    await expect(new Reopenings(undefined).reopened(fault, 0, never)).rejects.toBe(fault);
  });

  it('never heals across a version change', async () => {
    const heal = healOf(bytes(20));
    const fault = new VersionChanged('etag mismatch');
    await expect(new Reopenings(heal).reopened(fault, 0, never)).rejects.toBe(fault);
    expect(heal.offsets).toEqual([]);
  });

  it('counts its attempts across every fault of the body, then lets the fault stand', async () => {
    const heal = healOf(bytes(20), { attempts: 2 });
    const reopenings = new Reopenings(heal);
    await reopenings.reopened(new Error('first'), 3, never);
    await reopenings.reopened(new Error('second'), 9, never);
    const third = new Error('third');
    await expect(reopenings.reopened(third, 12, never)).rejects.toBe(third);
    expect(heal.offsets).toEqual([3, 9]);
  });

  it('takes a failed reopening for the next fault, and stops at a version change it answers', async () => {
    const failing = healOf(bytes(20), {
      fail: (attempt) => (attempt < 3 ? new Error(`reopening ${attempt}`) : undefined),
    });
    expect(await firstBytes(new Reopenings(failing), new Error('reset'), 5)).toEqual(bytes(20).slice(5, 8));
    expect(failing.offsets).toEqual([5, 5, 5]);

    const exhausted = healOf(bytes(20), { fail: (attempt) => new Error(`reopening ${attempt}`) });
    await expect(new Reopenings(exhausted).reopened(new Error('reset'), 5, never)).rejects.toThrow('reopening 3');

    const changed = healOf(bytes(20), { fail: () => new VersionChanged('etag mismatch') });
    await expect(new Reopenings(changed).reopened(new Error('reset'), 5, never)).rejects.toBeInstanceOf(VersionChanged);
    expect(changed.offsets).toEqual([5]);
  });

  it('waits its backoff before each reopening, doubled each time', async () => {
    const started = Date.now();
    const heal = healOf(bytes(20), {
      backoffMs: 20,
      fail: (attempt) => (attempt < 3 ? new Error('again') : undefined),
    });
    await new Reopenings(heal).reopened(new Error('reset'), 0, never);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20 + 40 + 80 - 5);
  });

  it('reopens nothing once cancelled, before or during its wait', async () => {
    const heal = healOf(bytes(20), { backoffMs: 30 });
    const fault = new Error('reset');
    await expect(new Reopenings(heal).reopened(fault, 0, () => true)).rejects.toBe(fault);
    let cancelled = false;
    const pending = new Reopenings(heal).reopened(fault, 0, () => cancelled);
    setTimeout(() => (cancelled = true), 5);
    await expect(pending).rejects.toBe(fault);
    expect(heal.offsets).toEqual([]);
  });
});
