// One running stack per test file: the real S3 server (SigV4-verifying s3rver) behind a
// recording tap, and both workers in Miniflare pointed at the tap. Tests speak HTTP to the
// edge and assert on what the origin really received.

import { request as httpRequest } from 'node:http';
import { type S3Origin, startS3Origin } from '../../local/origin.ts';
import { type Stack, startWorkers, type WorkersOptions } from '../../local/workers.ts';
import type { RawConfig } from '../../shared/config/config.ts';
import { startTap, type Tap } from '../local/origin-tap.ts';

export const SHIELD_TOKEN = 'test-shield-token';

export interface Fixture {
  origin: S3Origin;
  tap: Tap;
  stack: Stack;
  /** A request to the edge; the body is read so connections are reused. */
  get(path: string, init?: RequestInit): Promise<Answer>;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
  text: string;
}

/** Settings over the defaults; a function when they depend on where the tap listens. */
export type FixtureConfig = RawConfig | ((tap: Tap) => RawConfig);

/** The fake clock of a fixture: real time plus however far a test has moved it. */
export class FakeClock {
  private offset = 0;
  now = (): number => Date.now() + this.offset;
  /** Moves the clock forward by `seconds`: entries age without the test sleeping. */
  advance(seconds: number): void {
    this.offset += seconds * 1000;
  }
}

export async function startFixture(
  overrides: FixtureConfig = {},
  options: {
    resolve?: (tap: Tap) => Record<string, string>;
    clock?: FakeClock;
    front?: boolean;
    entries?: { edge?: string; shield?: string };
    /** A second edge isolate, as another location's (Stack.secondEdgeUrl). */
    secondEdge?: boolean;
    /** false: the edge's Cache API does nothing (WorkersOptions.edgeCache). */
    edgeCache?: boolean;
    /** A second location in a workerd process of its own (Stack.secondLocationUrl; local/location.ts). */
    secondLocation?: WorkersOptions['secondLocation'];
    /** The R2 tier behind the shield, on Miniflare's R2 (WorkersOptions.r2Tier). */
    r2Tier?: boolean;
  } = {},
): Promise<Fixture> {
  const origin = await startS3Origin();
  const tap = await startTap(origin.url, options.clock ? { clock: options.clock.now } : {});
  const config = typeof overrides === 'function' ? overrides(tap) : overrides;
  const stack = await startWorkers({
    config: {
      ORIGIN_KIND: 's3',
      ORIGIN_URL: tap.url,
      S3_BUCKET: origin.bucket,
      S3_ACCESS_KEY_ID: origin.accessKeyId,
      S3_SECRET_ACCESS_KEY: origin.secretAccessKey,
      SHIELD_TOKEN,
      ...config,
    },
    ...(options.resolve ? { resolve: options.resolve(tap) } : {}),
    ...(options.clock ? { clock: options.clock.now } : {}),
    ...(options.front ? { front: true } : {}),
    ...(options.entries ? { entries: options.entries } : {}),
    ...(options.secondEdge ? { secondEdge: true } : {}),
    ...(options.edgeCache === false ? { edgeCache: false } : {}),
    ...(options.secondLocation !== undefined ? { secondLocation: options.secondLocation } : {}),
    ...(options.r2Tier === true ? { r2Tier: true } : {}),
  });
  return {
    origin,
    tap,
    stack,
    get: (path, init) => request(new URL(path, stack.url), init),
    async close() {
      await stack.dispose();
      await tap.close();
      await origin.close();
    },
  };
}

/** An answer whose text is decoded only when asked for: decoding a large binary body costs more than reading it. */
function answer<Extra extends object = object>(
  status: number,
  headers: Headers,
  body: Uint8Array,
  extra?: Extra,
): Answer & Extra {
  return {
    status,
    headers,
    body,
    ...(extra as Extra),
    get text() {
      return new TextDecoder().decode(body);
    },
  };
}

export async function request(url: URL | string, init?: RequestInit): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const body = new Uint8Array(await response.arrayBuffer());
  return answer(response.status, response.headers, body);
}

/**
 * A GET through node:http, which (unlike fetch) sends any header as given: Connection,
 * Proxy-Authorization and friends, as a hostile or careless client would.
 */
export function rawGet(url: URL, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = new Uint8Array(Buffer.concat(chunks));
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === 'string') answerHeaders.set(name, value);
        resolve(answer(res.statusCode ?? 0, answerHeaders, body));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The Cache-Status members, each as [cache name, params...]. */
export function cacheStatus(answer: Answer): string[][] {
  const value = answer.headers.get('cache-status') ?? '';
  return value
    .split(',')
    .map((member) => member.split(';').map((part) => part.trim()))
    .filter((m) => m[0]);
}

/** Resolves once `condition()` holds, or after `withinMs`, polling every 20 ms; the caller asserts what it needs. */
export async function until(condition: () => boolean, withinMs = 2000): Promise<void> {
  const started = Date.now();
  while (!condition() && Date.now() - started <= withinMs) await settle(20);
}

/** Entries are stored after the response is sent (waitUntil); give that a moment. */
export function settle(ms = 150): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An answer that may have broken part-way: what arrived, and the error it ended with. */
export interface RawAnswer extends Answer {
  /** Set when the transfer broke (reset, cut short of its Content-Length, aborted). */
  error: Error | undefined;
}

/**
 * A GET through node:http that never hides a broken transfer: a body cut short of its
 * Content-Length or reset part-way comes back with `error` set and the bytes that arrived.
 * Sends any header as given, `Host` included.
 */
export function rawRequest(url: URL, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const finish = (
      status: number,
      raw: Record<string, string | string[] | undefined>,
      error: Error | undefined,
    ): void => {
      const body = new Uint8Array(Buffer.concat(chunks));
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(raw)) if (typeof value === 'string') answerHeaders.set(name, value);
      resolve(answer(status, answerHeaders, body, { error }));
    };
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => finish(res.statusCode ?? 0, res.headers, error));
      res.on('close', () => {
        const declared = Number(res.headers['content-length'] ?? Number.NaN);
        const received = chunks.reduce((n, chunk) => n + chunk.length, 0);
        const cut = !res.complete || (Number.isSafeInteger(declared) && method !== 'HEAD' && declared !== received);
        finish(res.statusCode ?? 0, res.headers, cut ? new Error(`transfer broke after ${received} bytes`) : undefined);
      });
    });
    req.on('error', (error) => finish(0, {}, error));
    req.end();
  });
}
