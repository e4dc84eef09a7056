// The request's meter (shared/observe/request-meter.ts): the work a request leaves running,
// waited for before its record is counted, and the bytes of the next hop's answers.

import { describe, expect, it } from 'vitest';
import { meteredUpstream, RequestMeter, shieldFetchedFromOrigin } from '../../../shared/observe/request-meter.ts';
import type { ObjectMeta } from '../../../shared/slices/object-meta.ts';
import { type SliceSpan, spanBytes } from '../../../shared/slices/slice-plan.ts';
import type { Upstream, UpstreamAnswer } from '../../../shared/tier/ports.ts';
import { tier } from '../../../shared/tiers/tiers.ts';

const SHIELD_MEMBER = tier('shield').statusMember;

/** A promise with its settling in the test's hands. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued microtask (and a macrotask turn) run. */
const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Whether `promise` has settled, without waiting for it. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await turn();
  return done;
}

const META: ObjectMeta = {
  size: 2500,
  etag: '"v1"',
  sliceSize: 1000,
  headers: new Headers({ 'content-type': 'application/octet-stream' }),
};
const emptyBody = (): ReadableStream<Uint8Array> => new ReadableStream({ start: (controller) => controller.close() });

/** An upstream that answers what it is given, and records what it was asked. */
function scripted(answer: () => UpstreamAnswer): Upstream & { asked: { span: SliceSpan; from: number | undefined }[] } {
  const asked: { span: SliceSpan; from: number | undefined }[] = [];
  return {
    asked,
    async slices(span, _pinned, ask) {
      asked.push({ span, from: ask?.from });
      return answer();
    },
    head: async () => new Response(null, { status: 200, headers: { 'content-length': '2500' } }),
  };
}

/** A body made of chunks of these lengths. */
function chunks(lengths: number[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const length of lengths) controller.enqueue(new Uint8Array(length));
      controller.close();
    },
  });
}

const spanAnswer = (span: SliceSpan, meta: ObjectMeta = META): UpstreamAnswer => ({
  kind: 'span',
  meta,
  span,
  body: emptyBody(),
  response: new Response(null, { status: 206 }),
});

describe('RequestMeter.hold / settled / idle', () => {
  it('is idle until something is held, and hands every held promise to keepAlive', () => {
    const kept: Promise<unknown>[] = [];
    const meter = new RequestMeter(123, (promise) => kept.push(promise));
    expect(meter.started).toBe(123);
    expect(meter.idle).toBe(true);
    const held = Promise.resolve();
    meter.hold(held);
    expect(meter.idle).toBe(false);
    expect(kept).toEqual([held]);
  });

  it('settles at once with nothing held', async () => {
    const meter = new RequestMeter(0, () => {});
    expect(await isSettled(meter.settled())).toBe(true);
  });

  it('waits for every held promise', async () => {
    const meter = new RequestMeter(0, () => {});
    const first = deferred();
    const second = deferred();
    meter.hold(first.promise);
    meter.hold(second.promise);
    const settled = meter.settled();
    first.resolve();
    expect(await isSettled(settled)).toBe(false);
    second.resolve();
    expect(await isSettled(settled)).toBe(true);
  });

  it('waits for promises held while the others were settling (nested holds), however deep', async () => {
    const kept: Promise<unknown>[] = [];
    const meter = new RequestMeter(0, (promise) => kept.push(promise));
    const outer = deferred();
    const inner = deferred();
    const innermost = deferred();
    // The outer work, once done, leaves more work running, which leaves more still.
    meter.hold(outer.promise.then(() => meter.hold(inner.promise.then(() => meter.hold(innermost.promise)))));
    const settled = meter.settled();
    outer.resolve();
    expect(await isSettled(settled)).toBe(false);
    inner.resolve();
    expect(await isSettled(settled)).toBe(false);
    expect(kept).toHaveLength(3);
    innermost.resolve();
    expect(await isSettled(settled)).toBe(true);
  });

  it('waits for a rejected promise without throwing', async () => {
    const meter = new RequestMeter(0, (promise) => void promise.catch(() => {}));
    const failing = deferred();
    const slow = deferred();
    meter.hold(failing.promise);
    meter.hold(slow.promise);
    const settled = meter.settled();
    failing.reject(new Error('the store failed'));
    expect(await isSettled(settled)).toBe(false);
    slow.resolve();
    await expect(settled).resolves.toBeUndefined();
  });

  it('a promise held late by a rejected one is still waited for', async () => {
    const meter = new RequestMeter(0, (promise) => void promise.catch(() => {}));
    const late = deferred();
    meter.hold(Promise.reject(new Error('fill failed')).finally(() => meter.hold(late.promise)));
    const settled = meter.settled();
    expect(await isSettled(settled)).toBe(false);
    late.resolve();
    await expect(settled).resolves.toBeUndefined();
  });

  it('adds fetched bytes, and those from the origin apart', () => {
    const meter = new RequestMeter(0, () => {});
    meter.fetched(100, false);
    meter.fetched(40, true);
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([140, 40]);
  });
});

describe('meteredUpstream', () => {
  it('counts a span answer by the bytes of its span (spanBytes of the span and the meta)', async () => {
    const meter = new RequestMeter(0, () => {});
    const span = { first: 1, last: 2 };
    const upstream = meteredUpstream(
      scripted(() => spanAnswer(span)),
      meter,
      () => false,
    );
    const answer = await upstream.slices(span, META);
    expect(answer.kind).toBe('span');
    const bytes = spanBytes(span, META.sliceSize, META.size);
    // Slices 1 and 2 of 2500 bytes in 1000-byte slices: bytes 1000–2499, the last slice short.
    expect(bytes.end - bytes.start + 1).toBe(1500);
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([1500, 0]);
  });

  it('counts a span from `ask.from` on only, never below zero', async () => {
    const meter = new RequestMeter(0, () => {});
    const span = { first: 0, last: 0 };
    const inner = scripted(() => spanAnswer(span));
    const upstream = meteredUpstream(inner, meter, () => true);
    await upstream.slices(span, META, { from: 300 });
    expect(inner.asked).toEqual([{ span, from: 300 }]);
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([700, 700]);
    await upstream.slices(span, META, { from: 5000 });
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([700, 700]);
  });

  it('counts a whole answer by its Content-Length; 0 without a body', async () => {
    const meter = new RequestMeter(0, () => {});
    let next: () => Response = () => new Response('x'.repeat(42), { headers: { 'content-length': '42' } });
    const upstream = meteredUpstream(
      scripted(() => ({ kind: 'whole', response: next() })),
      meter,
      () => false,
    );
    const declared = await upstream.slices({ first: 0, last: 0 }, undefined);
    expect(meter.bytesFromNextHop).toBe(42);
    // Its length declared, the answer is passed on as it is, nothing held for it.
    expect(meter.idle).toBe(true);
    expect(declared.kind === 'whole' && (await declared.response.text())).toBe('x'.repeat(42));
    // No body (a HEAD-like or 304-like answer), even with a length declared.
    next = () => new Response(null, { headers: { 'content-length': '999' } });
    await upstream.slices({ first: 0, last: 0 }, undefined);
    expect(meter.bytesFromNextHop).toBe(42);
  });

  it('counts a whole answer that declares no length (chunked, or a garbled length) by the bytes that pass, once they have', async () => {
    const meter = new RequestMeter(0, () => {});
    let next: () => Response = () =>
      new Response(chunks([10, 300, 7]), { status: 200, statusText: 'OK', headers: { 'content-type': 'text/csv' } });
    const upstream = meteredUpstream(
      scripted(() => ({ kind: 'whole', response: next() })),
      meter,
      () => true,
    );
    const answer = await upstream.slices({ first: 0, last: 0 }, undefined);
    if (answer.kind !== 'whole') throw new Error('expected the whole answer');
    expect([answer.response.status, answer.response.headers.get('content-type')]).toEqual([200, 'text/csv']);
    expect(meter.idle).toBe(false);
    expect((await answer.response.arrayBuffer()).byteLength).toBe(317);
    await meter.settled();
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([317, 317]);
    next = () => new Response('abc', { headers: { 'content-length': 'abc' } });
    const garbled = await upstream.slices({ first: 0, last: 0 }, undefined);
    if (garbled.kind === 'whole') await garbled.response.text();
    await meter.settled();
    expect(meter.bytesFromNextHop).toBe(320);
  });

  it('counts what passed of a chunked answer cut part-way, and the reader still sees the failure', async () => {
    const meter = new RequestMeter(0, () => {});
    let pulls = 0;
    const cut = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (pulls++ === 0) controller.enqueue(new Uint8Array(64));
          else controller.error(new Error('connection reset'));
        },
      },
      { highWaterMark: 0 },
    );
    const upstream = meteredUpstream(
      scripted(() => ({ kind: 'whole', response: new Response(cut) })),
      meter,
      () => true,
    );
    const answer = await upstream.slices({ first: 0, last: 0 }, undefined);
    if (answer.kind !== 'whole') throw new Error('expected the whole answer');
    await expect(answer.response.arrayBuffer()).rejects.toThrow();
    await meter.settled();
    expect(meter.bytesFromNextHop).toBe(64);
  });

  it('counts what passed of a chunked answer its reader cancelled, and cancels the body it came from', async () => {
    const meter = new RequestMeter(0, () => {});
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => controller.enqueue(new Uint8Array(100)),
        cancel: () => {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const upstream = meteredUpstream(
      scripted(() => ({ kind: 'whole', response: new Response(endless) })),
      meter,
      () => false,
    );
    const answer = await upstream.slices({ first: 0, last: 0 }, undefined);
    if (answer.kind !== 'whole' || answer.response.body === null) throw new Error('expected the whole answer');
    const reader = answer.response.body.getReader();
    await reader.read();
    await reader.cancel();
    await meter.settled();
    expect(cancelled).toBe(true);
    expect(meter.bytesFromNextHop).toBeGreaterThanOrEqual(100);
    expect(meter.bytesFromOrigin).toBe(0);
  });

  it('counts nothing for beyond and not-modified answers', async () => {
    const meter = new RequestMeter(0, () => {});
    const answers: UpstreamAnswer[] = [
      { kind: 'beyond', meta: META, response: new Response(null, { status: 416 }) },
      { kind: 'not-modified', response: new Response(null, { status: 304, headers: { 'content-length': '2500' } }) },
    ];
    const upstream = meteredUpstream(
      scripted(() => answers.shift()!),
      meter,
      () => true,
    );
    expect((await upstream.slices({ first: 5, last: 5 }, META)).kind).toBe('beyond');
    expect((await upstream.slices({ first: 0, last: 0 }, META)).kind).toBe('not-modified');
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([0, 0]);
  });

  it('attributes bytes to the origin through the given predicate, per answer', async () => {
    const meter = new RequestMeter(0, () => {});
    const seen: Response[] = [];
    let fromOrigin = true;
    const inner = scripted(() => spanAnswer({ first: 0, last: 0 }));
    const upstream = meteredUpstream(inner, meter, (response) => {
      seen.push(response);
      return fromOrigin;
    });
    const first = await upstream.slices({ first: 0, last: 0 }, META);
    fromOrigin = false;
    await upstream.slices({ first: 0, last: 0 }, META);
    expect(seen[0]).toBe(first.response);
    expect(seen).toHaveLength(2);
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([2000, 1000]);
  });

  it('passes head through, uncounted', async () => {
    const meter = new RequestMeter(0, () => {});
    const upstream = meteredUpstream(
      scripted(() => spanAnswer({ first: 0, last: 0 })),
      meter,
      () => true,
    );
    const head = await upstream.head();
    expect(head.headers.get('content-length')).toBe('2500');
    expect(meter.bytesFromNextHop).toBe(0);
  });

  it('counts nothing when the upstream throws, and the error passes', async () => {
    const meter = new RequestMeter(0, () => {});
    const upstream = meteredUpstream(
      { slices: async () => Promise.reject(new Error('version changed')), head: async () => new Response(null) },
      meter,
      () => true,
    );
    await expect(upstream.slices({ first: 0, last: 0 }, META)).rejects.toThrow('version changed');
    expect(meter.bytesFromNextHop).toBe(0);
  });
});

describe('meteredUpstream: a slice read ahead (the warm, then the copy) is counted once, as the shield counts it', () => {
  /**
   * An upstream whose warms store (the shield fetching `fromOrigin` bytes for each) and whose slice answers say
   * `cacheStatus`.
   */
  function withWarm(
    fromOrigin: number | undefined,
    cacheStatus: string,
  ): Upstream & { asked: { span: SliceSpan; from: number | undefined }[] } {
    const inner = scripted(() => ({
      ...spanAnswer({ first: 1, last: 1 }),
      response: new Response(null, { status: 200, headers: { 'cache-status': cacheStatus } }),
    }));
    return { ...inner, warm: async () => fromOrigin };
  }

  it('a warm that stored the slice counts its bytes as fetched from the next hop, and what the next hop fetched from the origin', async () => {
    const meter = new RequestMeter(0, () => {});
    const upstream = meteredUpstream(withWarm(1000, `${SHIELD_MEMBER}; hit`), meter, shieldFetchedFromOrigin);
    expect(await upstream.warm?.({ first: 1, last: 1 }, META)).toBe(1000);
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([1000, 1000]);
    // The last slice is short: its own length.
    expect(await upstream.warm?.({ first: 2, last: 2 }, META)).toBe(1000);
    expect(meter.bytesFromNextHop).toBe(1500);
  });

  it('a warm that found the slice stored at the next hop counts it as fetched, none of it from the origin; one that failed counts nothing', async () => {
    const stored = new RequestMeter(0, () => {});
    await meteredUpstream(withWarm(0, `${SHIELD_MEMBER}; hit`), stored, shieldFetchedFromOrigin).warm?.(
      { first: 0, last: 0 },
      META,
    );
    expect([stored.bytesFromNextHop, stored.bytesFromOrigin]).toEqual([1000, 0]);
    const failed = new RequestMeter(0, () => {});
    await meteredUpstream(withWarm(undefined, `${SHIELD_MEMBER}; hit`), failed, shieldFetchedFromOrigin).warm?.(
      { first: 0, last: 0 },
      META,
    );
    expect([failed.bytesFromNextHop, failed.bytesFromOrigin]).toEqual([0, 0]);
  });

  it('the copy answered from what the warm stored (a shield hit) counts nothing more; any other copy is counted as it came', async () => {
    const meter = new RequestMeter(0, () => {});
    await meteredUpstream(withWarm(1000, `${SHIELD_MEMBER}; hit`), meter, shieldFetchedFromOrigin).slices(
      { first: 1, last: 1 },
      META,
      { copy: true },
    );
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([0, 0]);
    // The warm's slice was gone again by the copy: the shield fetched it anew, a request of its own.
    await meteredUpstream(
      withWarm(1000, `${SHIELD_MEMBER}; fwd=uri-miss; stored`),
      meter,
      shieldFetchedFromOrigin,
    ).slices({ first: 1, last: 1 }, META, { copy: true });
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([1000, 1000]);
    // Not a copy: a hit is counted as any answer.
    await meteredUpstream(withWarm(1000, `${SHIELD_MEMBER}; hit`), meter, shieldFetchedFromOrigin).slices(
      { first: 1, last: 1 },
      META,
    );
    expect([meter.bytesFromNextHop, meter.bytesFromOrigin]).toEqual([2000, 1000]);
  });
});

describe('RequestMeter.sentBody', () => {
  it('leaves a response whose framing says its length as it is, counting nothing', () => {
    const meter = new RequestMeter(0, () => {});
    for (const response of [
      new Response('abc', { headers: { 'content-length': '3' } }),
      new Response(null, { status: 204 }),
    ])
      expect(meter.sentBody('GET', response)).toBe(response);
    const head = new Response('abc');
    expect(meter.sentBody('HEAD', head)).toBe(head);
    expect([meter.bytesSent, meter.idle]).toEqual([undefined, true]);
  });

  it('counts a body without a Content-Length as it is sent, headers and status kept', async () => {
    const meter = new RequestMeter(0, () => {});
    const sent = meter.sentBody(
      'GET',
      new Response(chunks([5, 6000]), { status: 404, headers: { 'cache-status': 'tiercache-edge; fwd=uri-miss' } }),
    );
    expect([sent.status, sent.headers.get('cache-status'), meter.bytesSent]).toEqual([
      404,
      'tiercache-edge; fwd=uri-miss',
      0,
    ]);
    expect((await sent.arrayBuffer()).byteLength).toBe(6005);
    await meter.settled();
    expect(meter.bytesSent).toBe(6005);
  });
});

describe('shieldFetchedFromOrigin', () => {
  const answer = (status: number, cacheStatus?: string): Response =>
    new Response(null, { status, headers: cacheStatus === undefined ? {} : { 'cache-status': cacheStatus } });

  it('a shield hit did not go to the origin', () => {
    expect(shieldFetchedFromOrigin(answer(200, `${SHIELD_MEMBER}; hit; ttl=50`))).toBe(false);
    expect(shieldFetchedFromOrigin(answer(206, `origin-cache; fwd=miss, ${SHIELD_MEMBER}; hit`))).toBe(false);
  });

  it('a shield miss did', () => {
    expect(shieldFetchedFromOrigin(answer(200, `${SHIELD_MEMBER}; fwd=uri-miss; stored`))).toBe(true);
    expect(shieldFetchedFromOrigin(answer(206, `${SHIELD_MEMBER}; fwd=stale; fwd-status=200`))).toBe(true);
  });

  it("a 5xx is the shield's own answer, not origin egress", () => {
    expect(shieldFetchedFromOrigin(answer(503, `${SHIELD_MEMBER}; fwd=miss; fwd-status=503`))).toBe(false);
    expect(shieldFetchedFromOrigin(answer(502))).toBe(false);
  });

  it('an answer without a shield member is taken as fetched from the origin', () => {
    expect(shieldFetchedFromOrigin(answer(200))).toBe(true);
    expect(shieldFetchedFromOrigin(answer(200, 'tiercache-edge; hit'))).toBe(true);
  });
});
