// The serving side of shaper.check.ts, in a process of its own so that the check's process only
// measures: an origin answering `?bytes=N` (at most 64 MB of 'a'), and one shaper
// (bench/setup/shaper.ts) per profile in front of it, given as `latencyMs,bytesPerSec`
// arguments. Says `ready` with the URLs; answers `stats` messages with that shaper's counters;
// stops when the parent goes away, or after 3 minutes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseProfile, shaperOptions } from '../../../bench/setup/origin-profiles.ts';
import { type ShaperStats, startShaper } from '../../../bench/setup/shaper.ts';

const MAX_BODY_BYTES = 64e6;
const RUN_TIMEOUT_MS = 180_000;

export type ToServe = { kind: 'stats'; index: number };
export type FromServe =
  | { kind: 'ready'; origin: string; shapers: string[] }
  | { kind: 'stats'; stats: ShaperStats | undefined };

// Run as a script (forked), never when imported for its types.
if (process.argv[1] === fileURLToPath(import.meta.url)) await serve(process.argv.slice(2));

async function serve(profileTexts: string[]): Promise<void> {
  const profiles = profileTexts.map(parseProfile);
  const body = Buffer.alloc(MAX_BODY_BYTES, 0x61);
  const server = createServer((req, res) => {
    const bytes = Math.min(
      MAX_BODY_BYTES,
      Number(new URL(req.url ?? '/', 'http://origin').searchParams.get('bytes') ?? 0),
    );
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes });
    res.end(body.subarray(0, bytes));
  });
  const origin = await listen(server);
  const shapers = await Promise.all(profiles.map((profile) => startShaper(shaperOptions(profile, origin))));
  const stop = async () => {
    await Promise.all(shapers.map((shaper) => shaper.close()));
    server.closeAllConnections();
    server.close();
    process.disconnect?.();
  };
  setTimeout(() => void stop(), RUN_TIMEOUT_MS).unref();
  process.on('disconnect', () => void stop());
  process.on('message', (message: ToServe) =>
    process.send?.({ kind: 'stats', stats: shapers[message.index]?.stats() } satisfies FromServe),
  );
  process.send?.({ kind: 'ready', origin, shapers: shapers.map((shaper) => shaper.url) } satisfies FromServe);
}

function listen(s: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
  });
}
