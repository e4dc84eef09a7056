import { describe, expect, it } from 'vitest';
import {
  addCorsHeaders,
  allowedOrigin,
  corsEnabled,
  EXPOSED_HEADERS,
  PREFLIGHT_MAX_AGE,
  parseAllowedOrigins,
  preflightHeaders,
} from '../../../shared/http/cors.ts';

const APP = 'https://app.example';
const list = [APP, 'http://localhost:5173'];

function preflight(headers: Record<string, string>, allowed: '*' | string[] = list): Headers | undefined {
  return preflightHeaders(new Headers(headers), allowed);
}

describe('parseAllowedOrigins', () => {
  it('reads an empty setting as CORS off', () => {
    expect(parseAllowedOrigins('')).toEqual({ ok: true, origins: [] });
    expect(corsEnabled([])).toBe(false);
  });

  it('reads "*" as every origin', () => {
    expect(parseAllowedOrigins(' * ')).toEqual({ ok: true, origins: '*' });
  });

  it('keeps each origin in the serialized form browsers send as Origin (lower-case host, no default port, no slash)', () => {
    expect(parseAllowedOrigins('https://App.Example/, http://localhost:5173,https://cdn.example:443')).toEqual({
      ok: true,
      origins: ['https://app.example', 'http://localhost:5173', 'https://cdn.example'],
    });
  });

  it('refuses anything that is not an http(s) origin, saying what it got', () => {
    for (const bad of [
      'app.example',
      'https://app.example/path',
      'https://app.example?x',
      'ftp://app.example',
      'null',
      'https://user@app.example',
    ]) {
      const result = parseAllowedOrigins(bad);
      expect(result.ok, bad).toBe(false);
      if (!result.ok) expect(result.reason).toContain(JSON.stringify(bad));
    }
  });

  it('refuses "*" mixed with origins', () => {
    expect(parseAllowedOrigins(`*, ${APP}`).ok).toBe(false);
  });
});

describe('allowedOrigin', () => {
  it('echoes a listed origin and refuses one that is not listed, byte for byte', () => {
    expect(allowedOrigin(APP, list)).toBe(APP);
    expect(allowedOrigin('https://evil.example', list)).toBeUndefined();
    expect(allowedOrigin('https://app.example.evil.example', list)).toBeUndefined();
    expect(allowedOrigin('http://app.example', list)).toBeUndefined();
    expect(allowedOrigin(null, list)).toBeUndefined();
  });

  it('answers "*" for every origin, and for none, when every origin is allowed', () => {
    expect(allowedOrigin('https://any.example', '*')).toBe('*');
    expect(allowedOrigin(null, '*')).toBe('*');
  });
});

describe('addCorsHeaders', () => {
  it('lets a listed origin read the answer and the headers a media player or downloader needs', () => {
    const headers = addCorsHeaders(new Headers(), APP, list);
    expect(headers.get('access-control-allow-origin')).toBe(APP);
    expect(headers.get('access-control-expose-headers')).toBe(
      'Content-Length, Content-Range, ETag, Accept-Ranges, Cache-Status, Server-Timing, Age',
    );
    expect(headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('gives an origin that is not listed no CORS header at all', () => {
    const headers = addCorsHeaders(new Headers(), 'https://evil.example', list);
    expect([...headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('always says Vary: Origin when the answer depends on the origin ("CORS protocol and HTTP caches", Fetch)', () => {
    expect(addCorsHeaders(new Headers(), APP, list).get('vary')).toBe('Origin');
    expect(addCorsHeaders(new Headers(), 'https://evil.example', list).get('vary')).toBe('Origin');
    expect(addCorsHeaders(new Headers(), null, list).get('vary')).toBe('Origin');
  });

  it('adds Origin to the Vary the origin sent, once', () => {
    expect(addCorsHeaders(new Headers({ vary: 'Accept-Encoding' }), APP, list).get('vary')).toBe(
      'Accept-Encoding, Origin',
    );
    expect(addCorsHeaders(new Headers({ vary: 'origin' }), APP, list).get('vary')).toBe('origin');
    expect(addCorsHeaders(new Headers({ vary: '*' }), APP, list).get('vary')).toBe('*');
  });

  it('says "*" without Vary when every origin is allowed, so one cached answer serves everyone', () => {
    for (const origin of [APP, null]) {
      const headers = addCorsHeaders(new Headers(), origin, '*');
      expect(headers.get('access-control-allow-origin')).toBe('*');
      expect(headers.get('access-control-expose-headers')).toBe(EXPOSED_HEADERS.join(', '));
      expect(headers.get('vary')).toBeNull();
    }
  });

  it('changes nothing when CORS is off', () => {
    const headers = addCorsHeaders(new Headers({ vary: 'Accept-Encoding' }), APP, []);
    expect([...headers]).toEqual([['vary', 'Accept-Encoding']]);
  });
});

describe('preflightHeaders', () => {
  it('grants a GET preflight from a listed origin for a day, echoing the requested headers it allows', () => {
    const headers = preflight({
      origin: APP,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'range,if-none-match',
    });
    expect(headers?.get('access-control-allow-origin')).toBe(APP);
    expect(headers?.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(headers?.get('access-control-allow-headers')).toBe('range, if-none-match');
    expect(headers?.get('access-control-max-age')).toBe(String(PREFLIGHT_MAX_AGE));
    expect(headers?.get('vary')).toBe('Origin');
  });

  it('grants HEAD too, and every conditional and range header', () => {
    const headers = preflight({
      origin: APP,
      'access-control-request-method': 'HEAD',
      'access-control-request-headers': 'Range, If-None-Match, If-Modified-Since, If-Range, If-Match',
    });
    expect(headers?.get('access-control-allow-headers')).toBe(
      'range, if-none-match, if-modified-since, if-range, if-match',
    );
  });

  it('never grants a header outside the allow-list, so the browser fails a preflight that asks for one', () => {
    const headers = preflight({
      origin: APP,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization,range,x-custom',
    });
    expect(headers?.get('access-control-allow-headers')).toBe('range');
    expect(
      preflight({
        origin: APP,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      })?.has('access-control-allow-headers'),
    ).toBe(false);
  });

  it('grants nothing for other methods, other origins, or an OPTIONS that is not a preflight', () => {
    expect(preflight({ origin: APP, 'access-control-request-method': 'PUT' })).toBeUndefined();
    expect(preflight({ origin: APP, 'access-control-request-method': 'DELETE' })).toBeUndefined();
    expect(preflight({ origin: 'https://evil.example', 'access-control-request-method': 'GET' })).toBeUndefined();
    expect(preflight({ origin: APP })).toBeUndefined();
    expect(preflight({ 'access-control-request-method': 'GET' })).toBeUndefined();
    expect(preflight({ origin: APP, 'access-control-request-method': 'GET' }, [])).toBeUndefined();
  });

  it('answers "*" without Vary when every origin is allowed', () => {
    const headers = preflight({ origin: APP, 'access-control-request-method': 'GET' }, '*');
    expect(headers?.get('access-control-allow-origin')).toBe('*');
    expect(headers?.get('vary')).toBeNull();
  });
});
