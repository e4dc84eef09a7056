import { describe, expect, it } from 'vitest';
import { BadGateway } from '../../../shared/http/errors.ts';
import { type WarmReadParts, warmRead } from '../../../shared/tier/warm-read.ts';
import { faultyStream, patternBytes, streamOf } from '../../streams.ts';

const BODY = patternBytes(50_000);

/** A tier's read scripted: its GET's member and body, its HEAD's member; what was cancelled, settled, asked. */
function parts(
  get: { status?: number; member: string; body?: ReadableStream<Uint8Array>; length?: number | null },
  head: { member: string } | undefined = undefined,
  originBytes = 0,
): WarmReadParts & { cancelled: boolean; settled: boolean; heads: number } {
  const state = { cancelled: false, settled: false, heads: 0 };
  const body = get.body ?? streamOf(BODY, 4096, () => (state.cancelled = true));
  const headers = new Headers({ 'cache-status': get.member });
  if (get.length !== null) headers.set('content-length', String(get.length ?? BODY.length));
  return Object.assign(state, {
    tier: 'shield' as const,
    get: async () => new Response(body, { status: get.status ?? 200, headers }),
    head: async () => {
      state.heads++;
      return new Response(null, {
        status: 200,
        headers: { 'cache-status': head?.member ?? 'tiercache-shield; fwd=miss' },
      });
    },
    settled: async () => {
      state.settled = true;
    },
    originBytes: () => originBytes,
  });
}

describe('warmRead', () => {
  it('calls an object the tier holds whole cached, and reads none of its body', async () => {
    const read = parts({ member: 'tiercache-shield; hit; ttl=30' });
    expect(await warmRead(read)).toEqual({
      outcome: 'cached',
      status: 200,
      size: BODY.length,
      bytes: 0,
      originBytes: 0,
    });
    expect(read.cancelled).toBe(true);
  });

  it('drains a miss to its end, waits for its stores, and calls it warmed when its member says stored', async () => {
    const read = parts({ member: 'tiercache-shield; fwd=uri-miss; stored' }, undefined, BODY.length);
    expect(await warmRead(read)).toEqual({
      outcome: 'warmed',
      status: 200,
      size: BODY.length,
      bytes: BODY.length,
      originBytes: BODY.length,
    });
    expect(read.settled).toBe(true);
    expect(read.heads).toBe(0);
  });

  it('asks a HEAD after a miss too long for its member to say stored: a hit is warmed, else not kept', async () => {
    const kept = parts({ member: 'tiercache-shield; fwd=uri-miss' }, { member: 'tiercache-shield; hit' }, 9);
    expect(await warmRead(kept)).toMatchObject({ outcome: 'warmed', bytes: BODY.length, originBytes: 9 });
    expect(kept.heads).toBe(1);
    const lost = parts({ member: 'tiercache-shield; fwd=uri-miss' }, { member: 'tiercache-shield; fwd=uri-miss' });
    expect(await warmRead(lost)).toMatchObject({
      outcome: 'failed',
      reason: expect.stringMatching(/not kept by the shield/),
    });
  });

  it("reads on a sliced object's hit whose later slices were not looked up yet, cached unless the origin was asked", async () => {
    const member = 'tiercache-shield; hit; detail="slices 1/1 of 3"';
    expect(await warmRead(parts({ member }))).toMatchObject({ outcome: 'cached', bytes: BODY.length });
    expect(await warmRead(parts({ member }, undefined, 10))).toMatchObject({ outcome: 'warmed', originBytes: 10 });
  });

  it('skips what a rule bypasses, and fails an error answer with its status', async () => {
    expect(await warmRead(parts({ member: 'tiercache-shield; fwd=bypass; detail="rule:api"' }))).toMatchObject({
      outcome: 'skipped',
      reason: 'a rule bypasses the cache for it',
    });
    const missing = parts({ status: 404, member: 'tiercache-shield; fwd=uri-miss; fwd-status=404' });
    expect(await warmRead(missing)).toMatchObject({ outcome: 'failed', status: 404, reason: 'answered 404' });
    expect(missing.cancelled).toBe(true);
  });

  it('fails a read the tier refused, with the status a client would get', async () => {
    const read: WarmReadParts = {
      ...parts({ member: '' }),
      get: () => Promise.reject(new BadGateway('the origin could not be reached')),
    };
    expect(await warmRead(read)).toMatchObject({
      outcome: 'failed',
      status: 502,
      reason: 'answered 502: the origin could not be reached',
    });
  });

  it('fails a body cut short of its length, or broken part-way, saying how far it got', async () => {
    const short = parts({ member: 'tiercache-shield; fwd=uri-miss', length: BODY.length + 1 });
    expect(await warmRead(short)).toMatchObject({
      outcome: 'failed',
      reason: `the body held 50000 of its 50001 bytes`,
    });
    const broken = parts({ member: 'tiercache-shield; fwd=uri-miss', body: faultyStream(BODY, 1000, 'error', 500) });
    expect(await warmRead(broken)).toMatchObject({
      outcome: 'failed',
      bytes: 1000,
      reason: expect.stringMatching(/broke after 1000 bytes/),
    });
  });
});
