// A minimal S3 client for tooling: SigV4-signed object requests (smithy's signer) sent with node:http.
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256, sha256Hex } from './sha256.ts';

const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
const DEFAULT_REGION = 'us-east-1';

export interface S3ClientOptions {
  /** Service endpoint without the bucket, e.g. `http://127.0.0.1:4568`. */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region?: string;
}

/** A body to upload. A stream needs a `content-length` header: S3 refuses uploads without one. */
export type S3Body = Uint8Array | AsyncIterable<Uint8Array> | string;

export interface S3Client {
  putObject(key: string, body: S3Body, headers?: Record<string, string>): Promise<void>;
  /** The object as a streaming `Response` (2xx or 304); any other status throws `S3RequestError`. */
  getObject(key: string, headers?: Record<string, string>): Promise<Response>;
  headObject(key: string): Promise<Response>;
  deleteObject(key: string): Promise<void>;
  /** A presigned GET URL (query-string SigV4, payload unsigned as S3 does for presigned URLs). */
  presignedUrl(key: string, expiresInSeconds?: number): Promise<string>;
}

/** A refusal from S3; `code` is the `<Code>` of the error document (e.g. `SignatureDoesNotMatch`). */
export class S3RequestError extends Error {
  override name = 'S3RequestError';
  readonly code: string;
  readonly status: number;

  constructor(request: string, status: number, code: string, detail: string) {
    super(`${request} failed: ${status} ${code}${detail ? `: ${detail}` : ''}`);
    this.code = code;
    this.status = status;
  }
}

export function createS3Client(options: S3ClientOptions): S3Client {
  const endpoint = new URL(options.endpoint);
  const objectPath = (key: string) => `/${options.bucket}/${uriEncode(key, true)}`;
  const signer = new SignatureV4({
    service: 's3',
    region: options.region ?? DEFAULT_REGION,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    sha256: Sha256,
    // S3 signs the path as sent, without the second encoding other AWS services apply.
    uriEscapePath: false,
  });
  const send = (
    method: string,
    key: string,
    headers: Record<string, string>,
    body?: S3Body,
  ): Promise<IncomingMessage> =>
    sendSigned(signer, endpoint, { method, path: objectPath(key), label: `${method} ${key}`, headers }, body);

  return {
    async putObject(key, body, headers = {}) {
      const prepared = await prepareBody(body, lowercase(headers));
      (await send('PUT', key, prepared.headers, prepared.body)).resume();
    },
    async getObject(key, headers = {}) {
      return toResponse(await send('GET', key, headers), 'GET');
    },
    async headObject(key) {
      return toResponse(await send('HEAD', key, {}), 'HEAD');
    },
    async deleteObject(key) {
      (await send('DELETE', key, {})).resume();
    },
    async presignedUrl(key, expiresInSeconds = 300) {
      const path = objectPath(key);
      // Hoisted into the query as X-Amz-Content-Sha256, as AWS SDK presigned URLs carry it.
      const request = toSign(endpoint, 'GET', path, { host: endpoint.host, 'X-Amz-Content-Sha256': UNSIGNED_PAYLOAD });
      const presigned = await signer.presign(request, { expiresIn: expiresInSeconds });
      const query = Object.entries(presigned.query ?? {})
        .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
        .map(([name, value]) => `${uriEncode(name, false)}=${uriEncode(value, false)}`);
      return `${endpoint.origin}${path}?${query.join('&')}`;
    },
  };
}

/** One object request: what is signed and sent, and how a refusal names it. */
interface ObjectRequest {
  method: string;
  /** The request-target as sent and signed, already encoded. */
  path: string;
  /** E.g. `PUT some/key`, for S3RequestError. */
  label: string;
  headers: Record<string, string>;
}

/**
 * Signs and sends one request; a status other than 2xx or 304 throws S3RequestError. Sent with
 * node:http, so that every header byte and the exact request-target are under our control and a
 * 64 MiB body streams through without being buffered.
 */
async function sendSigned(
  signer: SignatureV4,
  endpoint: URL,
  request: ObjectRequest,
  body?: S3Body,
): Promise<IncomingMessage> {
  const { method, path } = request;
  const signed = await signer.sign(
    toSign(endpoint, method, path, { ...lowercase(request.headers), host: endpoint.host }),
  );
  const outgoing = httpRequest({
    host: endpoint.hostname,
    port: endpoint.port,
    method,
    path,
    headers: signed.headers satisfies OutgoingHttpHeaders,
  });
  // Node then fails the upload if the body is longer or shorter than declared, instead of
  // leaving the server waiting for bytes that never come (typed on ServerResponse only).
  Object.assign(outgoing, { strictContentLength: true });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once('response', resolve).once('error', reject);
  });
  if (body === undefined) outgoing.end();
  const sent = body === undefined ? Promise.resolve() : pipeline(toIterable(body), outgoing);
  // Whichever explains more wins: a refusal can arrive before the body is through (the upload
  // then breaks off), and a body that fails to produce beats the "socket hang up" it causes.
  const incoming = await Promise.race([response, sent.then(() => response)]);
  if (incoming.statusCode === undefined || incoming.statusCode >= 300) {
    if (incoming.statusCode !== 304) throw await failure(request.label, incoming);
  }
  await sent;
  return incoming;
}

/** smithy's HttpRequest, as its signer takes it. */
type RequestToSign = Parameters<SignatureV4['presign']>[0];

/** The request as the signer sees it: no query of its own (presigning adds one). */
function toSign(endpoint: URL, method: string, path: string, headers: Record<string, string>): RequestToSign {
  return {
    method,
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    port: endpoint.port === '' ? undefined : Number(endpoint.port),
    path,
    query: {},
    headers,
  };
}

/** S3 `UriEncode`: every UTF-8 byte percent-encoded except `A-Za-z0-9-._~`, and `/` when `keepSlash` (key paths). */
function uriEncode(value: string, keepSlash: boolean): string {
  let encoded = '';
  for (const byte of new TextEncoder().encode(value)) {
    const char = String.fromCharCode(byte);
    const unreserved = /[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === '/');
    encoded += unreserved ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** A whole body is hashed into the signature; a stream is sent as `UNSIGNED-PAYLOAD` with its declared length. */
async function prepareBody(
  body: S3Body,
  headers: Record<string, string>,
): Promise<{ body: S3Body; headers: Record<string, string> }> {
  if (typeof body === 'string') body = new TextEncoder().encode(body);
  if (body instanceof Uint8Array) {
    const contentHash = await sha256Hex(body);
    return {
      body,
      headers: { ...headers, 'content-length': String(body.byteLength), 'x-amz-content-sha256': contentHash },
    };
  }
  if (headers['content-length'] === undefined) {
    throw new TypeError(
      'putObject: a streamed body needs a content-length header (S3 answers 411 MissingContentLength)',
    );
  }
  return { body, headers: { ...headers, 'x-amz-content-sha256': UNSIGNED_PAYLOAD } };
}

function toIterable(body: S3Body): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  if (typeof body === 'string') return [new TextEncoder().encode(body)];
  return body instanceof Uint8Array ? [body] : body;
}

async function failure(request: string, incoming: IncomingMessage): Promise<S3RequestError> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? 'UnknownError';
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? '';
  return new S3RequestError(request, incoming.statusCode ?? 0, code, message);
}

function toResponse(incoming: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
    headers.append(incoming.rawHeaders[i] ?? '', incoming.rawHeaders[i + 1] ?? '');
  }
  const status = incoming.statusCode ?? 0;
  const empty = method === 'HEAD' || status === 204 || status === 304;
  if (empty) incoming.resume();
  const body = empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
  return new Response(body, { status, headers });
}

function lowercase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
