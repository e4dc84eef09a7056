// AWS Signature Version 4 for the S3 origin request, via @smithy/signature-v4 with SHA-256/HMAC over crypto.subtle (no
// Node crypto, no extra dependency). https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html

import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, HttpRequest, SourceData } from '@smithy/types';
import type { S3Config } from '../../shared/config/config.ts';
import { concatBytes } from '../../shared/streams/bytes.ts';
import type { UnsignedRequest } from './s3-request.ts';

export type S3Credentials = Pick<S3Config, 'region' | 'accessKeyId' | 'secretAccessKey'>;

/**
 * SHA-256 of the empty string. GET and HEAD carry no body, so this is their payload hash.
 * We sign it rather than send UNSIGNED-PAYLOAD: it is a constant (no hashing per request),
 * it is what the S3 docs' own GetObject example signs, and every S3-compatible server must
 * accept a real hash, whereas UNSIGNED-PAYLOAD is an S3 extension some gateways lack.
 */
export const EMPTY_PAYLOAD_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * The full header set to send with `req`: its own headers plus `x-amz-date`,
 * `x-amz-content-sha256` and `authorization`. `signingDate` is the request time; S3
 * refuses requests more than 15 minutes away from its clock.
 */
export async function signS3Request(
  req: UnsignedRequest,
  s3: S3Credentials,
  signingDate: Date,
): Promise<Record<string, string>> {
  // A new SignatureV4 per call costs a few field assignments: the expensive part, the
  // derived signing key, is cached by smithy at module level per date/region/service/credentials.
  const signer = new SignatureV4({
    service: 's3',
    region: s3.region,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    sha256: WebCryptoSha256,
    // The path is already UriEncoded once (encodeKeyForPath); S3, unlike every other
    // AWS service, does not encode it a second time for the canonical request.
    uriEscapePath: false,
    // S3 requires x-amz-content-sha256 on every request; we set it ourselves below.
    applyChecksum: true,
  });
  const signed = await signer.sign(toSmithyRequest(req), { signingDate });
  return stringHeaders(signed.headers);
}

/**
 * smithy's `Checksum` over Web Crypto: SHA-256, or HMAC-SHA-256 when given a secret.
 * Web Crypto has no streaming digest, so `update` buffers; the inputs are a canonical
 * request or a signing-key step, never a body.
 */
export class WebCryptoSha256 implements Checksum {
  readonly digestLength = 32;
  // Imported once, non-extractable: the raw secret is not kept past the constructor.
  readonly #key: Promise<CryptoKey> | undefined;
  #chunks: Uint8Array[] = [];

  constructor(secret?: SourceData) {
    this.#key =
      secret === undefined
        ? undefined
        : crypto.subtle.importKey('raw', toBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  update(chunk: Uint8Array): void {
    this.#chunks.push(chunk.slice());
  }

  async digest(): Promise<Uint8Array> {
    const data = concatBytes(this.#chunks);
    const result =
      this.#key === undefined
        ? await crypto.subtle.digest('SHA-256', data)
        : await crypto.subtle.sign('HMAC', await this.#key, data);
    return new Uint8Array(result);
  }

  reset(): void {
    this.#chunks = [];
  }
}

function toSmithyRequest(req: UnsignedRequest): HttpRequest {
  return {
    method: req.method,
    protocol: req.url.protocol,
    hostname: req.url.hostname,
    port: req.url.port === '' ? undefined : Number(req.url.port),
    path: req.url.pathname,
    query: {},
    headers: { ...req.headers, 'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256 },
  };
}

function stringHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = value;
  }
  return out;
}

/** A private copy of the key bytes, whichever form smithy passes them in. */
function toBytes(data: SourceData): Uint8Array<ArrayBuffer> {
  const view =
    typeof data === 'string'
      ? new TextEncoder().encode(data)
      : ArrayBuffer.isView(data)
        ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : new Uint8Array(data);
  return view.slice();
}
