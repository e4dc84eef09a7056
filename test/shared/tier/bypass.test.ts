// bypassed (shared/tier/bypass.ts) over fake ports: a GET or HEAD a rule bypasses, at either tier, asked of the next
// hop as it came, counted, and reported with the rule's name; what the hop sends on is the hop's (HopCalls).

import { describe, expect, it } from 'vitest';
import { NotFound } from '../../../shared/http/errors.ts';
import { RequestMeter } from '../../../shared/observe/request-meter.ts';
import { requestTarget } from '../../../shared/request/request-target.ts';
import { bypassed } from '../../../shared/tier/bypass.ts';
import type { ForwardingTier, HopCall } from '../../../shared/tier/ports.ts';
import type { TierName } from '../../../shared/tiers/tiers.ts';
import { streamOf } from '../../streams.ts';
import { FakeHopCalls } from './fakes.ts';

function bypassedCall(method: 'GET' | 'HEAD' = 'GET', headers: Record<string, string> = {}): HopCall {
  const url = new URL('https://site.test/api/session?id=7');
  return { request: new Request(url, { method, headers }), url, target: requestTarget(url, 'http') };
}

function tierOf(name: TierName = 'edge'): ForwardingTier & { hop: FakeHopCalls; meter: RequestMeter } {
  return { name, hop: new FakeHopCalls(), meter: new RequestMeter(Date.now(), () => undefined) };
}

describe('bypassed: a GET or HEAD a rule bypasses', () => {
  it('is asked of the next hop as it came: the same request, URL and target, as a bypass', async () => {
    const tier = tierOf();
    const call = bypassedCall('GET', { range: 'bytes=0-3', cookie: 'session=1' });
    await bypassed(call, 'session', tier, Date.now());
    expect(tier.hop.calls).toEqual([{ via: 'bypass', ...call }]);
    expect(tier.hop.calls[0]?.request).toBe(call.request);
  });

  it("sends the next hop's answer back as it came: its status, headers and body", async () => {
    const tier = tierOf();
    tier.hop.answer = () =>
      new Response('part', {
        status: 206,
        headers: { 'content-range': 'bytes 0-3/10', 'content-length': '4', etag: '"v1"' },
      });
    const answer = await bypassed(bypassedCall(), 'session', tier, Date.now());
    expect(answer.status).toBe(206);
    expect(answer.headers.get('content-range')).toBe('bytes 0-3/10');
    expect(answer.headers.get('etag')).toBe('"v1"');
    expect(await answer.text()).toBe('part');
  });

  it.each(['edge', 'shield'] as const)(
    "reports it in the %s's Cache-Status member as fwd=bypass, with detail=rule:<name>",
    async (name) => {
      const answer = await bypassed(bypassedCall(), 'live', tierOf(name), Date.now());
      expect(answer.headers.get('cache-status')).toBe(`tiercache-${name}; fwd=bypass; detail=rule:live`);
      expect(answer.headers.get('server-timing')).toMatch(new RegExp(`^${name};dur=`));
    },
  );

  it("keeps the members of the tiers behind it, this tier's last (RFC 9211 §2)", async () => {
    const tier = tierOf('edge');
    tier.hop.answer = () =>
      new Response('x', { headers: { 'cache-status': 'tiercache-shield; fwd=bypass; detail=rule:live' } });
    const answer = await bypassed(bypassedCall(), 'live', tier, Date.now());
    expect(answer.headers.get('cache-status')).toBe(
      'tiercache-shield; fwd=bypass; detail=rule:live, tiercache-edge; fwd=bypass; detail=rule:live',
    );
  });

  it('counts the bytes its answer declares as fetched, and fetched from the origin', async () => {
    const tier = tierOf();
    await (await bypassed(bypassedCall(), 'session', tier, Date.now())).arrayBuffer();
    expect([tier.meter.bytesFromNextHop, tier.meter.bytesFromOrigin]).toEqual([9, 9]);
  });

  it('counts an answer that declares no length (chunked) as its bytes pass', async () => {
    const tier = tierOf();
    tier.hop.answer = () => new Response(streamOf(new TextEncoder().encode('a chunked answer'), 4));
    const answer = await bypassed(bypassedCall(), 'session', tier, Date.now());
    expect(await answer.text()).toBe('a chunked answer');
    await tier.meter.settled();
    expect([tier.meter.bytesFromNextHop, tier.meter.bytesFromOrigin]).toEqual([16, 16]);
  });

  it('counts no body bytes for a HEAD, whatever its Content-Length says (RFC 9110 §9.3.2)', async () => {
    const tier = tierOf();
    tier.hop.answer = () => new Response(null, { headers: { 'content-length': '1000' } });
    const answer = await bypassed(bypassedCall('HEAD'), 'session', tier, Date.now());
    expect(answer.headers.get('content-length')).toBe('1000');
    expect(tier.meter.bytesFromNextHop).toBe(0);
  });

  it("rejects with the hop's refusal (an S3 error document becomes one of ours), counting nothing", async () => {
    const tier = tierOf('shield');
    tier.hop.refusal = new NotFound('no such object');
    await expect(bypassed(bypassedCall(), 'session', tier, Date.now())).rejects.toBe(tier.hop.refusal);
    expect(tier.meter.bytesFromNextHop).toBe(0);
  });
});
