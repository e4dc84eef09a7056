// The embedded S3-compatible origin: s3rver on loopback with one bucket, written to through
// the real S3 API (signed requests), so what the shield later reads is what S3 would serve.

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import { createS3Client, type S3Body } from './s3-client.ts';
import { closeServer, listen } from './server.ts';

export const BUCKET = 'assets';
/** A second bucket, for several sites behind one deployment (HOST_BUCKETS). */
export const SECOND_BUCKET = 'site-b';
/** s3rver's only account (lib/models/account.js); it verifies SigV4 against this pair. */
export const S3RVER_ACCESS_KEY_ID = 'S3RVER';
export const S3RVER_SECRET_ACCESS_KEY = 'S3RVER';
/**
 * Requests for `<bucket>.s3.<serviceEndpoint>` are routed to the bucket (virtual-hosted style).
 * Beware: s3rver 4.0.4 checks their SigV4 signature over `/<bucket>/<key>` where S3 (and
 * every correct signer) uses `/<key>`, so correctly signed virtual-hosted requests get 403
 * SignatureDoesNotMatch. Path-style requests, including to `s3.<serviceEndpoint>`, verify.
 */
const DEFAULT_SERVICE_ENDPOINT = 'tiercache.test';

export interface S3OriginOptions {
  /** 0 (the default) = any free port. */
  port?: number;
  /** Where objects are stored; kept on close. Default: a fresh temp directory, removed on close. */
  directory?: string;
  serviceEndpoint?: string;
}

export interface S3Origin {
  /** Path-style service endpoint, `http://127.0.0.1:PORT`. */
  url: string;
  bucket: typeof BUCKET;
  accessKeyId: string;
  secretAccessKey: string;
  /** Signed PUT Object; throws `S3RequestError` (with the S3 error code) when refused. */
  putObject(key: string, body: S3Body, headers?: Record<string, string>): Promise<void>;
  deleteObject(key: string): Promise<void>;
  /** Signed PUT Object into another bucket of the same server (SECOND_BUCKET). */
  putObjectIn(bucket: string, key: string, body: S3Body, headers?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

export async function startS3Origin(options: S3OriginOptions = {}): Promise<S3Origin> {
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'tiercache-s3-')));
  const removeDirectory =
    options.directory === undefined ? () => rm(directory, { recursive: true, force: true }) : async () => {};
  let server: Server | undefined;
  try {
    const s3rver = new S3rver({
      silent: true,
      directory,
      serviceEndpoint: options.serviceEndpoint ?? DEFAULT_SERVICE_ENDPOINT,
      configureBuckets: [{ name: BUCKET }, { name: SECOND_BUCKET }],
    });
    await s3rver.configureBuckets();
    // Our own server around s3rver's Koa handler (rather than s3rver.run()): a listen error
    // then rejects here instead of being an unhandled 'error' event, and close() can end
    // kept-alive connections.
    const handle = s3rver.callback();
    server = createServer((req, res) => (isSigned(req) ? handle(req, res) : refuseAnonymous(req, res)));
    const url = await listen(server, options.port ?? 0);
    const client = createS3Client({
      endpoint: url,
      bucket: BUCKET,
      accessKeyId: S3RVER_ACCESS_KEY_ID,
      secretAccessKey: S3RVER_SECRET_ACCESS_KEY,
    });
    const listening = server;
    return {
      url,
      bucket: BUCKET,
      accessKeyId: S3RVER_ACCESS_KEY_ID,
      secretAccessKey: S3RVER_SECRET_ACCESS_KEY,
      putObject: client.putObject,
      deleteObject: client.deleteObject,
      putObjectIn: (bucket, key, body, headers) =>
        createS3Client({
          endpoint: url,
          bucket,
          accessKeyId: S3RVER_ACCESS_KEY_ID,
          secretAccessKey: S3RVER_SECRET_ACCESS_KEY,
        }).putObject(key, body, headers),
      close: once(async () => {
        await closeServer(listening);
        await removeDirectory();
      }),
    };
  } catch (error) {
    if (server?.listening) await closeServer(server);
    await removeDirectory();
    throw error;
  }
}

/**
 * s3rver checks a signature only when one is present and serves anonymous requests too;
 * the bucket behind the shield is private, so a request without any signature is refused
 * as S3 refuses it. (CORS preflights carry no credentials by design.)
 */
function isSigned(req: IncomingMessage): boolean {
  return (
    req.headers.authorization !== undefined ||
    req.method === 'OPTIONS' ||
    /[?&](X-Amz-Algorithm|Signature)=/.test(req.url ?? '')
  );
}

function refuseAnonymous(req: IncomingMessage, res: ServerResponse): void {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';
  req.resume();
  res.writeHead(403, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function once(action: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= action());
}
