// One GET on a fresh connection, timed to its first body byte and to its last, with the fields that say how
// tiercache's tiers answered it; the body is counted and dropped.

import { request } from 'node:http';
import type { HeaderSample } from './load-result.ts';

const DEFAULT_TIMEOUT_MS = 120_000;
const TIER_FIELDS = ['cache-status', 'server-timing'] as const;

/** For the answers a run must see one by one: the cold large object, the first (the missing) GET of each cold phase. */
export interface TimedAnswer extends HeaderSample {
  bytes: number;
  /** From writing the request to the first body byte; NaN for an empty body. */
  ttfbMs: number;
  totalMs: number;
}

/** Rejects on a network error or after `timeoutMs`. */
export function timedGet(url: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<TimedAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfbMs = Number.NaN;
    const pending = request(url, { agent: false }, (response) => {
      let bytes = 0;
      const headers = Object.fromEntries(TIER_FIELDS.map((name) => [name, fieldValue(response.headers[name])]));
      response.on('data', (chunk: Buffer) => {
        if (bytes === 0) ttfbMs = performance.now() - started;
        bytes += chunk.length;
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers, bytes, ttfbMs, totalMs: performance.now() - started });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(
      () => pending.destroy(new Error(`GET ${url} took longer than ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    pending.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    pending.end();
  });
}

function fieldValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
