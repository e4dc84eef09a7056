// A test double of Cloudflare's zone purge API on loopback: `POST /client/v4/zones/{zone_id}/purge_cache` with the
// documented bodies and envelope (developers.cloudflare.com/api/resources/cache/methods/purge/), recording what it
// received, and able to answer the next calls 429 with a Retry-After (developers.cloudflare.com/cache/how-to/
// purge-cache/: token-bucket rate limits per plan). It checks what Cloudflare would: the bearer token, the zone, one
// kind of body per call, at most MAX_OPERATIONS values.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen } from './server.ts';

/** "Max operations per request: 100" (the purge limits table). */
const MAX_OPERATIONS = 100;
const BODY_KINDS = ['files', 'tags', 'hosts', 'prefixes', 'purge_everything'] as const;

/** One call as received. */
interface ReceivedPurge {
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
  /** What the double answered. */
  status: number;
}

export interface CloudflareApiDouble {
  /** The API base to set as CF_API_BASE (`http://127.0.0.1:PORT/client/v4`). */
  base: string;
  received: ReceivedPurge[];
  /** The next `count` calls are answered 429 with `Retry-After: retryAfter`. */
  rateLimitNext(count: number, retryAfter: string): void;
  /**
   * From now on, the account's token bucket as the purge limits table describes it ("Bucket size" calls at once,
   * refilled at the plan's rate): a call finding it empty is answered 429 with the seconds until the next token.
   * Undefined: no bucket (the default).
   */
  tokenBucket(bucket: { size: number; perMinute: number } | undefined): void;
  close(): Promise<void>;
}

/** The double, accepting `token` for `zoneId`. */
export async function startCloudflareApi(token: string, zoneId: string): Promise<CloudflareApiDouble> {
  const received: ReceivedPurge[] = [];
  let limited = { count: 0, retryAfter: '1' };
  let bucket: { size: number; perMinute: number; tokens: number; at: number } | undefined;
  /** Whether the bucket (if any) has a token for this call; else the seconds until it has. */
  function take(): number | undefined {
    if (bucket === undefined) return undefined;
    const now = Date.now();
    bucket.tokens = Math.min(bucket.size, bucket.tokens + ((now - bucket.at) / 60_000) * bucket.perMinute);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.ceil(((1 - bucket.tokens) * 60) / bucket.perMinute);
  }
  const server = createServer((request, response) => {
    void readJson(request).then((body) => {
      const status = answer(request, body, response);
      received.push({
        path: request.url ?? '',
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        body,
        status,
      });
    });
  });
  function answer(request: IncomingMessage, body: unknown, response: ServerResponse): number {
    if (request.method !== 'POST' || request.url !== `/client/v4/zones/${zoneId}/purge_cache`)
      return send(response, 404, [{ code: 7003, message: 'Could not route to the requested resource' }]);
    if (request.headers.authorization !== `Bearer ${token}`)
      return send(response, 403, [{ code: 10000, message: 'Authentication error' }]);
    if (limited.count > 0) {
      limited.count--;
      return send(response, 429, [{ code: 971, message: 'Please wait and consider throttling your request speed' }], {
        'retry-after': limited.retryAfter,
      });
    }
    const wait = take();
    if (wait !== undefined)
      return send(response, 429, [{ code: 971, message: 'Please wait and consider throttling your request speed' }], {
        'retry-after': String(wait),
      });
    const problem = bodyProblem(body);
    if (problem !== undefined) return send(response, 400, [{ code: 1012, message: problem }]);
    return send(response, 200, [], {}, { id: randomUUID().replaceAll('-', '') });
  }
  const base = `${await listen(server, 0)}/client/v4`;
  return {
    base,
    received,
    rateLimitNext(count, retryAfter) {
      limited = { count, retryAfter };
    },
    tokenBucket(plan) {
      bucket = plan === undefined ? undefined : { ...plan, tokens: plan.size, at: Date.now() };
    },
    close: () => closeServer(server),
  };
}

/** Why Cloudflare would refuse `body`; undefined when it would take it. */
function bodyProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Request must be a JSON object';
  const kinds = Object.keys(body).filter((key) => (BODY_KINDS as readonly string[]).includes(key));
  if (kinds.length !== 1 || Object.keys(body).length !== 1) return `Expected one of ${BODY_KINDS.join(', ')}`;
  const value = (body as Record<string, unknown>)[kinds[0] ?? ''];
  if (kinds[0] === 'purge_everything') return value === true ? undefined : 'purge_everything must be true';
  if (!Array.isArray(value) || value.length === 0) return `${kinds[0]} must be a non-empty array`;
  if (value.length > MAX_OPERATIONS) return `At most ${MAX_OPERATIONS} ${kinds[0]} per request`;
  if (kinds[0] === 'prefixes' && value.some((item) => typeof item !== 'string' || /^[a-z]+:\/\//i.test(item)))
    return 'A prefix is a host and path without a scheme';
  return undefined;
}

function send(
  response: ServerResponse,
  status: number,
  errors: { code: number; message: string }[],
  headers: Record<string, string> = {},
  result: unknown = null,
): number {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ success: status === 200, errors, messages: [], result }));
  return status;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
