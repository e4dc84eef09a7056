import { describe, expect, it } from 'vitest';
import { BodyStalled } from '../../../shared/http/errors.ts';
import { SilenceWatch } from '../../../shared/streams/silence-watch.ts';

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A read that settles only when `settle` is called (as a source cut would end it). */
function pendingRead(): { read: Promise<string>; settle: (value: string) => void } {
  let settle: (value: string) => void = () => undefined;
  const read = new Promise<string>((resolve) => (settle = resolve));
  return { read, settle };
}

describe('SilenceWatch', () => {
  it('cuts a read silent for idleMs, and the fault it ends with is the stall', async () => {
    const { read, settle } = pendingRead();
    const cuts: BodyStalled[] = [];
    const watch = new SilenceWatch(20, (stall) => {
      cuts.push(stall);
      settle('ended');
    });
    const started = Date.now();
    expect(await watch.watched(() => read)).toBe('ended');
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    expect(cuts).toHaveLength(1);
    expect(cuts[0]).toBeInstanceOf(BodyStalled);
    expect(watch.stalled).toBe(true);
    const fault = watch.stallOr(new Error('ended short'));
    expect(fault).toBeInstanceOf(BodyStalled);
    expect(fault.message).toBe('no byte for 20 ms');
    // Taken once: the next fault is itself again.
    expect(watch.stalled).toBe(false);
    const other = new Error('reset');
    expect(watch.stallOr(other)).toBe(other);
    watch.stop();
  });

  it('leaves alone reads answered within idleMs, however long the body takes in all', async () => {
    let cuts = 0;
    const watch = new SilenceWatch(30, () => cuts++);
    for (let i = 0; i < 6; i++) await watch.watched(() => wait(10).then(() => i));
    await wait(40);
    expect(cuts).toBe(0);
    expect(watch.stalled).toBe(false);
    watch.stop();
  });

  it('does not count the time between reads as silence', async () => {
    let cuts = 0;
    const watch = new SilenceWatch(20, () => cuts++);
    await watch.watched(async () => 1);
    await wait(40);
    await watch.watched(() => wait(5));
    expect(cuts).toBe(0);
    watch.stop();
  });

  it('has no bound when idleMs is 0 or absent', async () => {
    for (const idleMs of [0, undefined]) {
      let cuts = 0;
      const watch = new SilenceWatch(idleMs, () => cuts++);
      expect(await watch.watched(() => wait(30).then(() => 'late'))).toBe('late');
      expect(cuts).toBe(0);
    }
  });

  it('cuts nothing once stopped', async () => {
    const { read, settle } = pendingRead();
    let cuts = 0;
    const watch = new SilenceWatch(20, () => cuts++);
    const watched = watch.watched(() => read);
    watch.stop();
    await wait(40);
    expect(cuts).toBe(0);
    settle('done');
    expect(await watched).toBe('done');
  });

  it('passes on a read that fails, as it failed', async () => {
    const watch = new SilenceWatch(50, () => undefined);
    await expect(watch.watched(() => Promise.reject(new Error('reset')))).rejects.toThrow('reset');
    watch.stop();
  });
});
