// The static-site settings left unset: nothing a plain object store would not do changes,
// except that objects stored without a type are typed by their extension.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, startFixture } from './fixture.ts';

let f: Fixture;

beforeAll(async () => {
  f = await startFixture();
  await f.origin.putObject('index.html', '<h1>home</h1>');
  await f.origin.putObject('app.js', 'console.log(1)');
});
afterAll(() => f?.close());

const originGets = (): string[] => f.tap.requests.filter((r) => r.method === 'GET').map((r) => r.path);

describe('the static-site settings by default', () => {
  it('keep / a 404 that never lists the bucket, and dir/ the literal key', async () => {
    f.tap.clear();
    expect((await f.get('/')).status).toBe(404);
    expect(f.tap.requests).toHaveLength(0);
    expect((await f.get('/docs/')).status).toBe(404);
    expect(originGets()).toEqual(['/assets/docs/']);
  });

  it('answer a missing object with the plain 404', async () => {
    const answer = await f.get('/no/such/page.html');
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('<');
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('add no CORS headers and no Vary, and answer a preflight with Allow only', async () => {
    const answer = await f.get('/app.js', { headers: { origin: 'https://app.example' } });
    expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(answer.headers.get('vary')).toBeNull();
    const preflight = await f.get('/app.js', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('type objects by their extension when the origin sent S3’s default', async () => {
    expect((await f.get('/index.html')).headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});
