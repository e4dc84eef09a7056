import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_HEADER } from '../../../shared/hop/hop-fields.ts';
import {
  forwardedRequestHeaders,
  HOP_BY_HOP,
  originResponseHeaders,
  S3_RESPONSE_HEADERS,
  TIER_MANAGED,
  withForwarding,
} from '../../../shared/http/headers.ts';

const names = (headers: Headers): string[] => [...headers.keys()].sort();

describe('forwardedRequestHeaders', () => {
  it('forwards ordinary request fields as they are', () => {
    const client = new Headers({
      accept: 'image/*',
      'accept-encoding': 'gzip',
      range: 'bytes=0-99',
      'if-none-match': '"v1"',
      'user-agent': 'curl/8',
    });
    expect([...forwardedRequestHeaders(client)]).toEqual([...client]);
  });

  it("forwards the client's credentials and cookies: end-to-end fields a site needs (RFC 9110 §7.6.1, §11.6.2)", () => {
    const forwarded = forwardedRequestHeaders(
      new Headers({ authorization: 'Bearer abc', cookie: 'session=1', accept: '*/*' }),
    );
    expect(names(forwarded)).toEqual(['accept', 'authorization', 'cookie']);
  });

  it('leaves out the fields the tiers set themselves on GET and HEAD: Range and the conditions', () => {
    const client = new Headers({
      range: 'bytes=0-1',
      'if-range': '"a"',
      'if-match': '"a"',
      'if-none-match': '"a"',
      'if-modified-since': 'x',
      'if-unmodified-since': 'x',
      accept: '*/*',
    });
    expect(names(forwardedRequestHeaders(client, TIER_MANAGED))).toEqual(['accept']);
  });

  it('never forwards Host or Content-Length, which belong to the next request', () => {
    const forwarded = forwardedRequestHeaders(
      new Headers({ host: 'cdn.example', 'content-length': '0', accept: '*/*' }),
    );
    expect(names(forwarded)).toEqual(['accept']);
  });

  it('never forwards x-amz-*, x-tiercache-* or cf-* fields, whatever their case', () => {
    const forwarded = forwardedRequestHeaders(
      new Headers({
        'X-Amz-Date': '20260901T000000Z',
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        [CREDENTIAL_HEADER]: 'token',
        'X-TierCache-Debug': '1',
        'CF-Connecting-IP': '192.0.2.1',
        'cf-ray': 'abc',
        accept: '*/*',
      }),
    );
    expect(names(forwarded)).toEqual(['accept']);
  });

  it('never forwards hop-by-hop fields (RFC 9110 §7.6.1)', () => {
    const client = new Headers(HOP_BY_HOP.map((name): [string, string] => [name, 'x']));
    client.set('accept', '*/*');
    expect(names(forwardedRequestHeaders(client))).toEqual(['accept']);
  });

  it('never forwards the fields the client listed in Connection (RFC 9110 §7.6.1)', () => {
    const client = new Headers({ connection: 'keep-alive, X-Session-Hint', 'x-session-hint': 'abc', accept: '*/*' });
    expect(names(forwardedRequestHeaders(client))).toEqual(['accept']);
  });

  it('never forwards Host, a cache-internal, a platform or an S3-specific field, whatever else is sent', () => {
    const forbidden = /^(host|content-length|x-amz-|x-tiercache-|cf-)/;
    const name = fc.oneof(
      fc.constantFrom(
        'authorization',
        'Cookie',
        'HOST',
        'X-Amz-Security-Token',
        'x-tiercache-credential',
        'cf-ipcountry',
        'accept',
        'range',
        ...HOP_BY_HOP,
      ),
      fc.string({ unit: fc.constantFrom('a', 'x', '-', 'c', 'f', 'm', 'z'), minLength: 1, maxLength: 12 }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.string({ unit: fc.constantFrom('a', '1', ' ', ';'), maxLength: 8 }))),
        (fields) => {
          for (const forwarded of names(forwardedRequestHeaders(new Headers(fields)))) {
            expect(forwarded).not.toMatch(forbidden);
            expect(HOP_BY_HOP).not.toContain(forwarded);
          }
        },
      ),
    );
  });
});

describe('withForwarding (nginx and Varnish: X-Forwarded-*, RFC 7239 Forwarded)', () => {
  it('appends the client to X-Forwarded-For and Forwarded, and sets X-Forwarded-Host and -Proto', () => {
    const headers = withForwarding(
      new Headers({
        'x-forwarded-for': '203.0.113.9',
        forwarded: 'for=203.0.113.9',
        'x-forwarded-host': 'forged.example',
      }),
      { host: 'cdn.example', proto: 'https', ip: '192.0.2.1' },
    );
    expect(headers.get('x-forwarded-for')).toBe('203.0.113.9, 192.0.2.1');
    expect(headers.get('x-forwarded-host')).toBe('cdn.example');
    expect(headers.get('x-forwarded-proto')).toBe('https');
    expect(headers.get('forwarded')).toBe('for=203.0.113.9, for=192.0.2.1;host=cdn.example;proto=https');
  });

  it('quotes what is not a token and brackets IPv6 addresses (RFC 7239 §4, §6)', () => {
    const headers = withForwarding(new Headers(), { host: 'cdn.example:8443', proto: 'https', ip: '2001:db8::1' });
    expect(headers.get('forwarded')).toBe('for="[2001:db8::1]";host="cdn.example:8443";proto=https');
    expect(headers.get('x-forwarded-for')).toBe('2001:db8::1');
  });

  it('leaves X-Forwarded-For as the client sent it when the address is unknown', () => {
    const headers = withForwarding(new Headers({ 'x-forwarded-for': '203.0.113.9' }), {
      host: 'cdn.example',
      proto: 'http',
    });
    expect(headers.get('x-forwarded-for')).toBe('203.0.113.9');
    expect(headers.get('forwarded')).toBe('host=cdn.example;proto=http');
  });
});

describe('originResponseHeaders from a plain HTTP origin', () => {
  it('keeps end-to-end fields and drops hop-by-hop ones (RFC 9110 §7.6.1)', () => {
    const origin = new Headers({
      'content-type': 'text/html',
      etag: '"1"',
      'x-powered-by': 'me',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      connection: 'keep-alive',
      upgrade: 'h2c',
    });
    expect(names(originResponseHeaders(origin))).toEqual(['content-type', 'etag', 'x-powered-by']);
  });

  it('drops the fields the origin listed in Connection, whatever their case (RFC 9110 §7.6.1)', () => {
    const origin = new Headers({
      connection: 'close, X-Debug-Trace',
      'x-debug-trace': 'abc',
      'content-type': 'text/plain',
    });
    expect(names(originResponseHeaders(origin))).toEqual(['content-type']);
  });

  it('keeps each Set-Cookie field line separately', () => {
    const origin = new Headers([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
    expect(originResponseHeaders(origin).getSetCookie()).toEqual(['a=1', 'b=2']);
  });
});

describe('originResponseHeaders from an S3 origin (with the allow-list)', () => {
  const s3Response = (): Headers =>
    new Headers({
      'content-type': 'image/png',
      'content-length': '1234',
      etag: '"d41d8cd98f00b204e9800998ecf8427e"',
      'last-modified': 'Sat, 01 Aug 2026 00:00:00 GMT',
      'cache-control': 'max-age=60',
      'accept-ranges': 'bytes',
      'x-amz-request-id': 'ABC123',
      'x-amz-id-2': 'xyz',
      'x-amz-meta-owner': 'alice',
      'x-amz-server-side-encryption': 'AES256',
      server: 'AmazonS3',
      'set-cookie': 'x=1',
      connection: 'keep-alive',
    });

  it('keeps only the representation and caching metadata on the allow-list', () => {
    expect(names(originResponseHeaders(s3Response(), S3_RESPONSE_HEADERS))).toEqual([
      'accept-ranges',
      'cache-control',
      'content-length',
      'content-type',
      'etag',
      'last-modified',
    ]);
  });

  it('keeps the values of allowed fields unchanged', () => {
    const kept = originResponseHeaders(s3Response(), S3_RESPONSE_HEADERS);
    expect(kept.get('etag')).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
    expect(kept.get('cache-control')).toBe('max-age=60');
  });

  it('never passes on a field outside the allow-list', () => {
    const fields = fc.array(
      fc.tuple(
        fc.constantFrom(
          'x-amz-request-id',
          'server',
          'set-cookie',
          'x-amz-meta-a',
          'etag',
          'vary',
          'date',
          'age',
          'via',
        ),
        fc.constant('v'),
      ),
    );
    fc.assert(
      fc.property(fields, (entries) => {
        for (const name of names(originResponseHeaders(new Headers(entries), S3_RESPONSE_HEADERS)))
          expect(S3_RESPONSE_HEADERS).toContain(name);
      }),
    );
  });

  it('drops an allowed field that the origin listed in Connection (RFC 9110 §7.6.1)', () => {
    const origin = new Headers({ connection: 'etag', etag: '"1"', 'content-type': 'text/plain' });
    expect(names(originResponseHeaders(origin, S3_RESPONSE_HEADERS))).toEqual(['content-type']);
  });
});
