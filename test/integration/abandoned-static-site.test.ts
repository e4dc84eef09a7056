// An unmodified static file server as the `http` origin (Python's http.server: it ignores Range, so a large file is a
// whole fill at both tiers), counted by a TCP proxy beside it and slowed by a shaper in front: a client that reads
// 1 MiB of a 96 MiB file and leaves costs the origin at most one slice more (ABANDONED_FILL_MAX) and what is in
// flight, and nothing of it is stored.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OriginLedger, type OriginResponse, startOriginLedger } from '../../bench/probes/origin-ledger.ts';
import { startShaper } from '../../bench/setup/shaper.ts';
import { type StaticFileServer, startStaticFileServer } from '../../bench/setup/static-file-server.ts';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { settle, until } from './fixture.ts';

const MiB = 1024 * 1024;
/** The slice size here, and so what an abandoned fill may still pull (ABANDONED_FILL_MAX' default). */
const SLICE = MiB;
/**
 * What is in flight when a fill stops (abandoned-fills.test.ts), and here more: the shaper's queue and the sockets of
 * two proxies sit between the server and the shield. Measured here at 1.4–4.3 MB; the bound leaves room for a loaded
 * machine.
 */
const IN_FLIGHT = 8 * MiB;
const SIZE = 96 * MiB;
/** The file takes the shaped link 6 s: a client that leaves after 1 MiB leaves nearly all of it. */
const RATE = 16e6;
/** A year: the file's Last-Modified, so the heuristic (RFC 9111 §4.2.2) gives it freshness and it is stored. */
const YEAR_MS = 365 * 24 * 3600 * 1000;

let directory: string;
let server: StaticFileServer;
let ledger: OriginLedger;
let shaper: Awaited<ReturnType<typeof startShaper>>;
let stack: Stack;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'tiercache-static-'));
  const file = join(directory, 'movie.bin');
  await writeFile(file, randomBytes(SIZE));
  const lastYear = new Date(Date.now() - YEAR_MS);
  await utimes(file, lastYear, lastYear);
  server = await startStaticFileServer(directory);
  ledger = await startOriginLedger(server.url);
  shaper = await startShaper({ target: ledger.url, firstByteLatencyMs: 0, bandwidthBytesPerSec: RATE });
  stack = await startWorkers({
    config: { ORIGIN_KIND: 'http', ORIGIN_URL: shaper.url, SHIELD_TOKEN: 't', SLICE_SIZE: '1MiB', LOG_SAMPLE: '0' },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await shaper?.close();
  await ledger?.close();
  await server?.close();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

/** A GET of `path` that reads `bytes` of the body, then closes its connection; resolves once it has. */
function readThenLeave(path: string, bytes: number, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    let received = 0;
    const req = httpRequest(new URL(path, stack.url), { headers, agent: false }, (res) => {
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received < bytes) return;
        req.destroy();
        resolve(res.statusCode ?? 0);
      });
      res.on('error', () => undefined);
      res.on('end', () => reject(new Error(`the body ended after ${received} bytes, before the client left`)));
    });
    req.on('error', () => undefined);
    req.end();
  });
}

const answersFor = (path: string): OriginResponse[] => ledger.responses().filter((r) => r.path === path);

describe('a large file from a static server that ignores Range, its client gone after 1 MiB', () => {
  it('costs the origin at most a slice (and what is in flight) after the client left, and is not stored', async () => {
    const status = await readThenLeave('/movie.bin', MiB, { range: 'bytes=0-' });
    const [answer] = answersFor('/movie.bin');
    const atDeparture = answer?.bodyBytes ?? 0;
    expect(status).toBe(206);
    expect(answer?.range, 'the shield asked for its first slice').toBe(`bytes=0-${SLICE - 1}`);
    expect(answer?.status, 'the server ignored the Range').toBe(200);
    await until(() => answer?.endedAt !== undefined, 6000);
    await settle(200);
    const after = (answer?.bodyBytes ?? 0) - atDeparture;
    expect(after, `${after} bytes sent after the client left, of ${SIZE}`).toBeLessThanOrEqual(SLICE + IN_FLIGHT);
    expect(answer?.complete, 'the file was not sent whole').toBe(false);
    // Nothing kept of it: a range asks the origin again.
    await readThenLeave('/movie.bin', 1000, { range: 'bytes=0-999' }).catch(() => 0);
    await until(() => answersFor('/movie.bin').length === 2, 3000);
    expect(answersFor('/movie.bin')).toHaveLength(2);
  });
});
