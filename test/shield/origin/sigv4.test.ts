import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import type { S3Config } from '../../../shared/config/config.ts';
import { encodeKeyForPath } from '../../../shared/request/object-key.ts';
import { s3ObjectRequest } from '../../../shield/origin/s3-request.ts';
import { EMPTY_PAYLOAD_SHA256, signS3Request, WebCryptoSha256 } from '../../../shield/origin/sigv4.ts';

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function sha256Hex(secret: string | undefined, ...chunks: string[]): Promise<string> {
  const hash = new WebCryptoSha256(secret);
  for (const chunk of chunks) hash.update(new TextEncoder().encode(chunk));
  return hex(await hash.digest());
}

function signatureOf(authorization: string | undefined): string | undefined {
  return authorization?.match(/Signature=([0-9a-f]{64})$/)?.[1];
}

function signedHeadersOf(authorization: string | undefined): string | undefined {
  return authorization?.match(/SignedHeaders=([^,]+),/)?.[1];
}

describe('WebCryptoSha256', () => {
  it('hashes the empty string to the well-known SHA-256 value', async () => {
    expect(await sha256Hex(undefined)).toBe(EMPTY_PAYLOAD_SHA256);
  });

  it('hashes "abc" as FIPS 180-2 says, whether given at once or in chunks', async () => {
    const expected = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(await sha256Hex(undefined, 'abc')).toBe(expected);
    expect(await sha256Hex(undefined, 'a', '', 'bc')).toBe(expected);
  });

  it('computes HMAC-SHA-256 when given a secret (RFC 4231 test case 2)', async () => {
    expect(await sha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('accepts the secret as bytes too', async () => {
    const hash = new WebCryptoSha256(new TextEncoder().encode('Jefe'));
    hash.update(new TextEncoder().encode('what do ya want for nothing?'));
    expect(hex(await hash.digest())).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('forgets what it was given on reset', async () => {
    const hash = new WebCryptoSha256();
    hash.update(new TextEncoder().encode('junk'));
    hash.reset();
    expect(hex(await hash.digest())).toBe(EMPTY_PAYLOAD_SHA256);
  });
});

// AWS SigV4 test suite, "get-vanilla":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/signing-elements.html (aws-sig-v4-test-suite)
describe('SigV4 test vector get-vanilla', () => {
  const canonicalRequest = [
    'GET',
    '/',
    '',
    'host:example.amazonaws.com',
    'x-amz-date:20150830T123600Z',
    '',
    'host;x-amz-date',
    EMPTY_PAYLOAD_SHA256,
  ].join('\n');

  it('hashes the canonical request to the published string-to-sign digest', async () => {
    expect(await sha256Hex(undefined, canonicalRequest)).toBe(
      'bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
    );
  });

  it('gives the published signature through smithy with our sha256', async () => {
    const signer = new SignatureV4({
      service: 'service',
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      sha256: WebCryptoSha256,
      applyChecksum: false,
    });
    const signed = await signer.sign(
      {
        method: 'GET',
        protocol: 'https:',
        hostname: 'example.amazonaws.com',
        path: '/',
        query: {},
        headers: { host: 'example.amazonaws.com' },
      },
      { signingDate: new Date('2015-08-30T12:36:00Z') },
    );
    expect(signed.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        'SignedHeaders=host;x-amz-date, ' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });
});

// The S3 docs' worked example "GET Object":
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
const exampleBucket: S3Config = {
  hostBuckets: new Map(),
  bucket: 'examplebucket',
  region: 'us-east-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  addressing: 'virtual',
};
const exampleDate = new Date('2013-05-24T00:00:00Z');

describe('signS3Request', () => {
  it('reproduces the S3 documentation GET Object example exactly', async () => {
    const req = s3ObjectRequest(exampleBucket, new URL('https://s3.amazonaws.com'), 'test.txt', 'GET', {
      range: 'bytes=0-9',
    });
    expect(await signS3Request(req, exampleBucket, exampleDate)).toEqual({
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      'x-amz-date': '20130524T000000Z',
      'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    });
  });

  it('signs host, range, x-amz-content-sha256 and x-amz-date when a range is given', async () => {
    const req = s3ObjectRequest(exampleBucket, new URL('https://s3.amazonaws.com'), 'a', 'GET', { range: 'bytes=1-2' });
    const headers = await signS3Request(req, exampleBucket, exampleDate);
    expect(signedHeadersOf(headers.authorization)).toBe('host;range;x-amz-content-sha256;x-amz-date');
  });

  it('signs only host, x-amz-content-sha256 and x-amz-date without conditional headers', async () => {
    const req = s3ObjectRequest(exampleBucket, new URL('https://s3.amazonaws.com'), 'a', 'HEAD', {});
    const headers = await signS3Request(req, exampleBucket, exampleDate);
    expect(signedHeadersOf(headers.authorization)).toBe('host;x-amz-content-sha256;x-amz-date');
    expect(Object.keys(headers).sort()).toEqual(['authorization', 'host', 'x-amz-content-sha256', 'x-amz-date']);
  });

  it('signs the key path as encoded once, never encoding the % signs again', async () => {
    const key = "dir/!'()* +~é";
    const req = s3ObjectRequest(exampleBucket, new URL('http://s3.example:9000'), key, 'GET', { range: 'bytes=0-0' });
    expect(req.url.pathname).toBe(`/${encodeKeyForPath(key)}`);
    expect(req.url.pathname).toBe('/dir/%21%27%28%29%2A%20%2B~%C3%A9');

    const headers = await signS3Request(req, exampleBucket, exampleDate);
    expect(signedHeadersOf(headers.authorization)).toBe('host;range;x-amz-content-sha256;x-amz-date');
    expect(signatureOf(headers.authorization)).toBe(referenceSignature(req.url.pathname, headers));
  });
});

/** The signature per the S3 docs' steps, with Node's crypto, for the path exactly as sent. */
function referenceSignature(path: string, headers: Record<string, string>): string {
  const names = ['host', 'range', 'x-amz-content-sha256', 'x-amz-date'];
  const canonicalRequest = [
    'GET',
    path,
    '',
    ...names.map((name) => `${name}:${headers[name] ?? ''}`),
    '',
    names.join(';'),
    EMPTY_PAYLOAD_SHA256,
  ].join('\n');
  const scope = '20130524/us-east-1/s3/aws4_request';
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    '20130524T000000Z',
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  let key: Buffer | string = `AWS4${exampleBucket.secretAccessKey}`;
  for (const part of scope.split('/')) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}
