// One GET of `npm run verify`: the answer's status, Cache-Status and Content-Range, its body hashed as it arrives
// (never held whole: a sliced object may be large), and the bytes of a few spans of it hashed apart, so that a range
// read later can be checked against the same bytes of the whole read.

import { createHash } from 'node:crypto';
import type { Read } from './verify-observations.ts';

export interface ReadOptions {
  /** `bytes=…`, sent as the Range field. */
  range?: string;
  /** The spans (inclusive) to hash apart, given the answer's Content-Length. */
  windows?: (length: number) => { start: number; end: number }[];
  timeoutMs?: number;
}

/** A read and the SHA-256 of each span asked for (undefined when the body did not reach all of it). */
export type HashedRead = Read & { windows: (string | undefined)[] };

export async function readObject(url: URL, path: string, options: ReadOptions): Promise<HashedRead> {
  const started = performance.now();
  const read: Read = { path, status: 0, cacheStatus: null, bytes: 0, sha256: '', ms: 0 };
  if (options.range !== undefined) read.range = options.range;
  const hash = createHash('sha256');
  let windows: { start: number; end: number; parts: Uint8Array[] }[] = [];
  try {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: options.range === undefined ? {} : { range: options.range },
      ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
    });
    read.status = response.status;
    read.cacheStatus = response.headers.get('cache-status');
    if (options.range !== undefined) read.contentRange = response.headers.get('content-range');
    const length = Number(response.headers.get('content-length'));
    windows = (options.windows?.(Number.isSafeInteger(length) ? length : 0) ?? []).map((w) => ({ ...w, parts: [] }));
    const reader = response.body?.getReader();
    for (;;) {
      const next = await reader?.read();
      if (next === undefined || next.done) break;
      const bytes = next.value;
      for (const w of windows) {
        const from = Math.max(w.start, read.bytes);
        const to = Math.min(w.end + 1, read.bytes + bytes.length);
        if (from < to) w.parts.push(bytes.slice(from - read.bytes, to - read.bytes));
      }
      hash.update(bytes);
      read.bytes += bytes.length;
    }
  } catch (error) {
    read.error = reason(error);
  }
  read.sha256 = hash.digest('hex');
  read.ms = performance.now() - started;
  return { ...read, windows: windows.map(spanHash) };
}

/** Why a fetch failed, in the words of the cause underneath "fetch failed" (ECONNREFUSED, ENOTFOUND …). */
export function reason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && cause.message !== '') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function spanHash(span: { start: number; end: number; parts: Uint8Array[] }): string | undefined {
  const got = span.parts.reduce((n, part) => n + part.length, 0);
  if (got !== span.end - span.start + 1) return undefined;
  const hash = createHash('sha256');
  for (const part of span.parts) hash.update(part);
  return hash.digest('hex');
}
