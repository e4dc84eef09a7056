import { describe, expect, it } from 'vitest';
import type { ObjectMeta } from '../../../shared/slices/object-meta.ts';
import type { SliceSpan } from '../../../shared/slices/slice-plan.ts';
import { HopLog, loggedUpstream } from '../../../shared/tier/hop-log.ts';
import type { SliceAsk, Upstream, UpstreamAnswer } from '../../../shared/tier/ports.ts';

const SHIELD = 'tiercache-shield';
const META: ObjectMeta = { size: 4096, sliceSize: 1024, etag: '"v1"', headers: new Headers() };
const headersOf = (member: string, timing = 'shield;dur=3'): Headers =>
  new Headers({ 'cache-status': `${SHIELD}; ${member}`, 'server-timing': timing });

/** A next hop whose slice answers come when the test says, with the member it is given. */
class HeldUpstream implements Upstream {
  readonly waiting: { span: SliceSpan; ask: SliceAsk | undefined; answer(member: string): void; fail(): void }[] = [];
  slices(span: SliceSpan, _pinned: unknown, ask?: SliceAsk): Promise<UpstreamAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({
        span,
        ask,
        answer: (member) =>
          resolve({
            kind: 'span',
            meta: META,
            span,
            body: new ReadableStream(),
            response: new Response(null, { headers: headersOf(member) }),
          }),
        fail: () => reject(new Error('the shield failed')),
      });
    });
  }
  head(): Promise<Response> {
    return Promise.resolve(new Response(null));
  }
  warm(): Promise<number | undefined> {
    return new Promise(() => undefined);
  }
}

describe('HopLog over loggedUpstream', () => {
  it('counts a slice asked as pending until its head arrives, then as heard', async () => {
    const log = new HopLog(SHIELD);
    const held = new HeldUpstream();
    const upstream = loggedUpstream(held, log);
    const first = upstream.slices({ first: 2, last: 2 }, META);
    void upstream.slices({ first: 3, last: 3 }, META);
    expect(log.report()).toEqual({ answers: [], pending: 2 });
    held.waiting[0]?.answer('fwd=partial; stored; detail="slices 0/1"');
    await first;
    expect(log.report()).toEqual({
      answers: [{ slices: 1, member: { fwd: 'partial', stored: true, detail: 'slices 0/1' }, timing: 'shield;dur=3' }],
      pending: 1,
    });
  });

  it('logs neither the copy after a warm nor the rest of a body that broke, and keeps the first verdict per slice', async () => {
    const log = new HopLog(SHIELD);
    const held = new HeldUpstream();
    const upstream = loggedUpstream(held, log);
    const asked = upstream.slices({ first: 1, last: 1 }, META);
    held.waiting[0]?.answer('fwd=partial');
    await asked;
    const copy = upstream.slices({ first: 1, last: 1 }, META, { copy: true });
    const rest = upstream.slices({ first: 1, last: 1 }, META, { from: 100 });
    const again = upstream.slices({ first: 1, last: 1 }, META);
    for (const call of held.waiting.slice(1)) call.answer('hit');
    await Promise.all([copy, rest, again]);
    expect(log.report().answers.map((a) => a.member)).toEqual([{ fwd: 'partial' }]);
    expect(log.report().pending).toBe(0);
  });

  it('lets go of an ask that failed, and of a warm once it ends, unless its head was heard', async () => {
    const log = new HopLog(SHIELD);
    const held = new HeldUpstream();
    const upstream = loggedUpstream(held, log);
    const failing = upstream.slices({ first: 0, last: 0 }, META);
    held.waiting[0]?.fail();
    await expect(failing).rejects.toThrow('the shield failed');
    void upstream.warm?.({ first: 5, last: 5 }, META);
    expect(log.report().pending).toBe(1);
    // The warm's head (worker/shield-client.ts hears it): the verdict, long before the warm ends.
    log.heard({ first: 5, last: 5 }, headersOf('hit'), true);
    expect(log.report()).toEqual({
      answers: [{ slices: 1, member: { hit: true }, timing: 'shield;dur=3' }],
      pending: 0,
    });
  });

  it('orders answers by slice, one about the object alone before the slice of the same index', () => {
    const log = new HopLog(SHIELD);
    log.heard({ first: 3, last: 3 }, headersOf('fwd=partial'), true);
    log.heard({ first: 0, last: 0 }, headersOf('fwd=partial'), true);
    log.heard({ first: 0, last: 0 }, headersOf('fwd=stale; fwd-status=304'), false);
    expect(log.report().answers.map((a) => [a.slices, a.member?.fwd])).toEqual([
      [0, 'stale'],
      [1, 'partial'],
      [1, 'partial'],
    ]);
  });
});
