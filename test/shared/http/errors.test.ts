import { describe, expect, it } from 'vitest';

import {
  BadGateway,
  BadRequest,
  ConfigError,
  errorResponse,
  Forbidden,
  GatewayTimeout,
  Gone,
  HttpError,
  MethodNotAllowed,
  NotFound,
} from '../../../shared/http/errors.ts';

describe('HttpError classes', () => {
  it('each carries its status and is an HttpError', () => {
    const cases: [HttpError, number][] = [
      [new BadRequest('bad'), 400],
      [new Forbidden('no'), 403],
      [new NotFound(), 404],
      [new MethodNotAllowed('POST', ['GET', 'HEAD']), 405],
      [new BadGateway('origin down'), 502],
      [new GatewayTimeout('origin slow'), 504],
    ];
    for (const [error, status] of cases) {
      expect(error.status).toBe(status);
      expect(error).toBeInstanceOf(HttpError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('HttpError');
    }
  });

  it('says "not found" when a NotFound is given no message', () => {
    expect(new NotFound().message).toBe('not found');
    expect(new NotFound('no such object').message).toBe('no such object');
  });

  it('names the refused method and the allowed ones in a 405', () => {
    expect(new MethodNotAllowed('DELETE', ['GET', 'HEAD']).message).toBe(
      'method DELETE is not allowed here; use GET, HEAD',
    );
  });

  it('does not echo more than 32 characters of an unknown method', () => {
    const error = new MethodNotAllowed('X'.repeat(1000), ['GET']);
    expect(error.message).toBe(`method ${'X'.repeat(32)} is not allowed here; use GET`);
  });

  it('records the status the next hop answered with', () => {
    const error = new BadGateway('origin failed');
    expect(error.upstreamStatus).toBeUndefined();
    expect(error.from(503)).toBe(error);
    expect(error.upstreamStatus).toBe(503);
  });
});

describe('HttpError.toResponse', () => {
  it('answers with its status and a plain-text body naming status and message', async () => {
    const response = new BadRequest('expected an object key, got "/"').toResponse();
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe('400 expected an object key, got "/"\n');
  });

  it('is never stored by any cache (RFC 9111 §5.2.2.5 no-store), except the absence of an object', () => {
    for (const error of [new BadRequest('x'), new BadGateway('x'), new HttpError(500, 'x'), new HttpError(412, 'x')]) {
      expect(error.toResponse().headers.get('cache-control')).toBe('no-store');
    }
    // A 404 or 410 may be kept briefly (negative caching, NEGATIVE_TTL): no no-store on it.
    for (const error of [new NotFound(), new Gone()])
      expect(error.toResponse().headers.get('cache-control')).toBeNull();
  });

  it('gives the Content-Length of the body in UTF-8 bytes', async () => {
    const response = new NotFound('no such object: café').toResponse();
    const bytes = new Uint8Array(await response.arrayBuffer()).byteLength;
    expect(response.headers.get('content-length')).toBe(String(bytes));
    expect(bytes).toBe('404 no such object: café\n'.length + 1);
  });

  it('carries Allow on a 405 (RFC 9110 §15.5.6: "MUST generate an Allow header field")', () => {
    const response = new MethodNotAllowed('POST', ['GET', 'HEAD']).toResponse('POST');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('sends no body for HEAD but the same status and fields as for GET (RFC 9110 §9.3.2)', async () => {
    const error = new NotFound();
    const get = error.toResponse('GET');
    const head = error.toResponse('HEAD');
    expect(head.status).toBe(404);
    expect(head.body).toBeNull();
    expect(await head.text()).toBe('');
    expect([...head.headers]).toEqual([...get.headers]);
  });

  it('keeps its own extra fields but never lets them replace content-type or cache-control', () => {
    const response = new HttpError(429, 'slow down', {
      'retry-after': '5',
      'cache-control': 'max-age=60',
      'content-type': 'text/html',
    }).toResponse();
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });
});

describe('errorResponse', () => {
  it('answers with our own error as it builds itself', async () => {
    const response = errorResponse(new GatewayTimeout('origin did not answer within 10000 ms'), 'GET');
    expect(response.status).toBe(504);
    expect(await response.text()).toBe('504 origin did not answer within 10000 ms\n');
  });

  it('answers anything else with an opaque 500 that does not leak its message', async () => {
    const response = errorResponse(new TypeError('secret=hunter2 at /srv/app.js:10'), 'GET');
    expect(response.status).toBe(500);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(body).toBe('500 internal error\n');
    expect(body).not.toContain('hunter2');
  });

  it('answers a thrown value that is not an Error with an opaque 500 too', async () => {
    for (const thrown of ['oops', undefined, null, 42, { message: 'leak' }]) {
      const response = errorResponse(thrown, 'GET');
      expect(response.status).toBe(500);
      expect(await response.text()).toBe('500 internal error\n');
    }
  });

  it('names the misconfigured setting in a 500', async () => {
    const response = errorResponse(new ConfigError('S3_BUCKET is required when ORIGIN_KIND=s3'), 'GET');
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('500 tiercache is misconfigured: S3_BUCKET is required when ORIGIN_KIND=s3\n');
  });

  it('sends no body for HEAD', () => {
    expect(errorResponse(new Error('x'), 'HEAD').body).toBeNull();
    expect(errorResponse(new NotFound(), 'HEAD').body).toBeNull();
  });
});
