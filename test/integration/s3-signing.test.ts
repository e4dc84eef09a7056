import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, startFixture } from './fixture.ts';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('signing for the S3 origin', () => {
  it('answers 502 with a short plain message naming the cause when the origin rejects the signature', async () => {
    f = await startFixture({ S3_SECRET_ACCESS_KEY: 'not-the-secret' });
    await f.origin.putObject('index.html', 'hello');
    const answer = await f.get('/index.html');
    expect(answer.status).toBe(502);
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(answer.text).toContain('SignatureDoesNotMatch');
    expect(answer.text).not.toMatch(/<|not-the-secret|S3RVER/);
    expect(answer.text.length).toBeLessThan(200);
    expect(f.tap.requests[0]?.status).toBe(403);
  });

  it('does not store the failure: the next request asks the origin again', async () => {
    f = await startFixture({ S3_SECRET_ACCESS_KEY: 'not-the-secret' });
    await f.origin.putObject('index.html', 'hello');
    await f.get('/index.html');
    await f.get('/index.html');
    expect(f.tap.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
  });

  it('addresses the bucket in the host name when S3_ADDRESSING=virtual, and signs exactly what it sends', async () => {
    // The bucket host name does not resolve here, so the shield's outbound traffic for it is
    // routed to the tap, which records the request byte for byte before s3rver sees it.
    f = await startFixture(
      (tap) => ({ S3_ADDRESSING: 'virtual', ORIGIN_URL: `http://s3.tiercache.test:${new URL(tap.url).port}` }),
      { resolve: (tap) => ({ 'assets.s3.tiercache.test': new URL(tap.url).host }) },
    );
    await f.get('/dir/my%20file%2B.txt');
    const sent = f.tap.requests.find((r) => r.method === 'GET');
    expect(sent).toBeDefined();
    const port = new URL(f.tap.url).port;
    expect(sent!.headers.host).toBe(`assets.s3.tiercache.test:${port}`);
    expect(sent!.path).toBe('/dir/my%20file%2B.txt');
    // Recompute the SigV4 signature independently (AWS's algorithm, node:crypto) over what was
    // received: path without the bucket, the bucket in Host.
    const auth = parseAuthorization(sent!.headers.authorization ?? '');
    expect(auth.signedHeaders).toEqual(['host', 'range', 'x-amz-content-sha256', 'x-amz-date']);
    expect(auth.signature).toBe(expectedSignature(sent!.path, sent!.headers, auth));
  });
});

interface Authorization {
  credential: string;
  signedHeaders: string[];
  signature: string;
}

function parseAuthorization(value: string): Authorization {
  const match = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(value);
  if (!match) throw new Error(`not a SigV4 authorization: ${value}`);
  return { credential: match[1]!, signedHeaders: match[2]!.split(';'), signature: match[3]! };
}

function expectedSignature(path: string, headers: Record<string, string>, auth: Authorization): string {
  const [, date, region, service] = auth.credential.split('/');
  const canonical = [
    'GET',
    path,
    '',
    ...auth.signedHeaders.map((name) => `${name}:${headers[name]?.trim()}`),
    '',
    auth.signedHeaders.join(';'),
    headers['x-amz-content-sha256'],
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    headers['x-amz-date'],
    scope,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac('AWS4S3RVER', date!), region!), service!), 'aws4_request');
  return createHmac('sha256', signingKey).update(toSign).digest('hex');
}
