import { describe, expect, it } from 'vitest';
import { SHIELD_ORIGIN } from '../../shared/hop/hop-fields.ts';
import { ConfigError } from '../../shared/http/errors.ts';
import { bindingTransport, type ShieldBinding, shieldTransport, urlTransport } from '../../worker/shield-transport.ts';

/** A fetch that records what it was asked and answers 200. */
function recording(): { calls: { url: string; init: RequestInit }[]; fetch: typeof fetch } {
  const calls: { url: string; init: RequestInit }[] = [];
  return {
    calls,
    fetch: ((url: string, init: RequestInit) => {
      calls.push({ url, init });
      return Promise.resolve(new Response('ok'));
    }) as typeof fetch,
  };
}

const binding = (record: ReturnType<typeof recording>): ShieldBinding => ({ fetch: record.fetch });

describe('the edge reaches the shield by its binding or by SHIELD_URL, one flow with the transport plugged in', () => {
  it('calls the service binding at the shield’s internal origin', async () => {
    const record = recording();
    await bindingTransport(binding(record)).fetch('/a/b?x=1', { method: 'GET' });
    expect(record.calls.map((call) => call.url)).toEqual([`${SHIELD_ORIGIN}/a/b?x=1`]);
  });

  it('fetches SHIELD_URL’s origin with the path, the init as given (headers, manual redirects), never the cache', async () => {
    const record = recording();
    const headers = new Headers({ 'x-tiercache-credential': 'secret' });
    await urlTransport(new URL('https://shield.example.com'), record.fetch).fetch('/a/b?x=1', {
      method: 'GET',
      headers,
      redirect: 'manual',
    });
    expect(record.calls).toHaveLength(1);
    const [call] = record.calls;
    expect(call?.url).toBe('https://shield.example.com/a/b?x=1');
    expect(call?.init.headers).toBe(headers);
    expect(call?.init.redirect).toBe('manual');
    // Cloudflare's cache never stands between the edge and the shield: every answer is the shield's own.
    expect(call?.init.cache).toBe('no-store');
  });

  it('never sends the credential anywhere but that origin: a path that would name another host is refused unsent', async () => {
    const record = recording();
    const transport = urlTransport(new URL('https://shield.example.com'), record.fetch);
    for (const path of ['.evil.example/x', '@evil.example/x', 'x', ''])
      await expect(transport.fetch(path, { method: 'GET' })).rejects.toThrow(/not a path at the shield/);
    // Paths that look like other hosts stay paths at the shield's origin.
    await transport.fetch('//evil.example/x', { method: 'GET' });
    expect(record.calls.map((call) => new URL(call.url).origin)).toEqual(['https://shield.example.com']);
  });

  it('takes SHIELD_URL over the binding when both are there, the binding when only it is, and names the problem when neither', async () => {
    const viaBinding = recording();
    const viaUrl = recording();
    await shieldTransport(binding(viaBinding), new URL('http://127.0.0.1:9'), viaUrl.fetch).fetch('/x', {});
    expect([viaBinding.calls.length, viaUrl.calls.length]).toEqual([0, 1]);
    await shieldTransport(binding(viaBinding), undefined, viaUrl.fetch).fetch('/x', {});
    expect([viaBinding.calls.length, viaUrl.calls.length]).toEqual([1, 1]);
    expect(() => shieldTransport(undefined, undefined)).toThrow(ConfigError);
    expect(() => shieldTransport(undefined, undefined)).toThrow(
      'the edge has no way to the shield: bind SHIELD (the shield worker) or set SHIELD_URL',
    );
  });
});
