// A WAN-like link in front of a loopback origin: a TCP proxy that holds each response's first byte for a round trip
// and caps each connection's download rate, so a local S3 server answers like a distant gateway.
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

const DEFAULT_FIRST_BYTE_LATENCY_MS = 80;
const DEFAULT_BANDWIDTH_BYTES_PER_SEC = 25e6;
/**
 * The bucket holds 50 ms of bandwidth (at least 16 KiB), so a late timer on a busy event loop
 * loses no tokens; each response starts with INITIAL_BYTES in it, so it never opens with a burst.
 */
const BURST_SECONDS = 0.05;
const MIN_BURST_BYTES = 64 * 1024;
/** What a response may send at once when it starts (about TCP's initial window), and the smallest write. */
const INITIAL_BYTES = 16 * 1024;
/** The timer waits for 5 ms of bandwidth (at least INITIAL_BYTES) between writes. */
const SLICE_SECONDS = 0.005;
/** Upstream is paused while two bursts' worth (at least 256 KiB) is queued for the client. */
const MIN_QUEUE_HIGH_WATER_BYTES = 256 * 1024;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface ShaperOptions {
  /** The origin, `http://127.0.0.1:PORT`: loopback only. */
  target: string;
  /** From a request's first byte to its response's first byte, at least. Default 80. */
  firstByteLatencyMs?: number;
  /** Upstream→client rate of each connection. Default 25e6 (25 MB/s). */
  bandwidthBytesPerSec?: number;
  /**
   * What the latency is counted from. `request` (the default): a response's first byte is sent no sooner than the
   * latency after its request's first byte, so an upstream slower than the latency adds nothing (the one shaper in
   * front of a local origin). `response`: the upstream's first byte is held for the latency, so shapers in a chain
   * add up as the round trips of real links do (the sim's topology: client → edge → shield → origin, whose floor is
   * the sum, bench/sim/topology.ts firstByteFloorMs).
   */
  latencyFrom?: 'request' | 'response';
}

export interface ShaperStats {
  /** Client connections accepted so far. */
  connections: number;
  /** Request starts seen: client→upstream going from idle to active (pipelined requests count once). */
  requests: number;
  /** Response bytes written to clients. */
  bytesToClient: number;
}

export interface Shaper {
  /** `http://127.0.0.1:PORT`: use it where the origin's URL went. */
  url: string;
  stats(): ShaperStats;
  /** Stops listening and destroys every connection, in flight or not. */
  close(): Promise<void>;
}

interface Link {
  latencyMs: number;
  latencyFrom: 'request' | 'response';
  bytesPerSec: number;
  burstBytes: number;
  sliceBytes: number;
  queueHighWaterBytes: number;
  stats: ShaperStats;
}

/**
 * Counts kept in `memory` (three numbers: connections, requests, bytes to clients), so that a
 * shaper running in another thread (origin-thread.ts) is read from this one as it counts.
 */
export function sharedCounts(memory: Float64Array): ShaperStats {
  return {
    get connections() {
      return memory[0] ?? 0;
    },
    set connections(value: number) {
      memory[0] = value;
    },
    get requests() {
      return memory[1] ?? 0;
    },
    set requests(value: number) {
      memory[1] = value;
    },
    get bytesToClient() {
      return memory[2] ?? 0;
    },
    set bytesToClient(value: number) {
      memory[2] = value;
    },
  };
}

export async function startShaper(
  options: ShaperOptions,
  counts: ShaperStats = { connections: 0, requests: 0, bytesToClient: 0 },
): Promise<Shaper> {
  const target = loopbackTarget(options.target);
  const latencyMs = options.firstByteLatencyMs ?? DEFAULT_FIRST_BYTE_LATENCY_MS;
  const bytesPerSec = options.bandwidthBytesPerSec ?? DEFAULT_BANDWIDTH_BYTES_PER_SEC;
  if (!(latencyMs >= 0) || !(bytesPerSec > 0))
    throw new Error(`expected a latency ≥ 0 ms and a bandwidth > 0 B/s, got ${latencyMs} ms and ${bytesPerSec} B/s`);
  const burstBytes = Math.max(MIN_BURST_BYTES, bytesPerSec * BURST_SECONDS);
  const stats = counts;
  const sliceBytes = Math.max(INITIAL_BYTES, bytesPerSec * SLICE_SECONDS);
  const link: Link = {
    latencyMs,
    latencyFrom: options.latencyFrom ?? 'request',
    bytesPerSec,
    burstBytes,
    sliceBytes,
    queueHighWaterBytes: Math.max(MIN_QUEUE_HIGH_WATER_BYTES, 2 * burstBytes),
    stats,
  };
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    link.stats.connections += 1;
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true, noDelay: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    shapeConnection(client, upstream, link);
  });
  const url = await listen(server);
  return {
    url,
    stats: () => ({
      connections: link.stats.connections,
      requests: link.stats.requests,
      bytesToClient: link.stats.bytesToClient,
    }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * Forwards both ways; upstream→client held for the latency at each response start, then rate-capped by a token bucket.
 * Real sockets (keep-alive, any method, any body) are shaped, so it never sleeps inside the workers it serves.
 */
function shapeConnection(client: Socket, upstream: Socket, link: Link): void {
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let tokens = INITIAL_BYTES;
  let refilledAt = performance.now();
  /** The client has sent bytes since the upstream last did: the next response bytes start a response. */
  let clientTurn = false;
  /** When the response to the latest request may start; `undefined` once it has. */
  let nextResponseAt: number | undefined;
  /** Nothing is sent to the client before this time. */
  let gateAt = 0;
  let awaitingDrain = false;
  let upstreamEnded = false;
  let timer: NodeJS.Timeout | undefined;

  const teardown = () => {
    clearTimeout(timer);
    client.destroy();
    upstream.destroy();
  };
  client.on('error', teardown).on('close', teardown);
  // A clean upstream end is forwarded once the queue is flushed (pump); any other close ends both.
  upstream.on('error', teardown).on('close', () => (upstreamEnded ? undefined : teardown()));

  // Client → upstream: unshaped, with backpressure; each idle→active turn is a request start.
  client.on('data', (chunk: Buffer) => {
    if (!clientTurn) {
      clientTurn = true;
      link.stats.requests += 1;
      nextResponseAt = performance.now() + link.latencyMs;
    }
    if (!upstream.write(chunk)) client.pause();
  });
  upstream.on('drain', () => client.resume());
  client.on('end', () => upstream.end());

  // Upstream → client: queued, released by the gate and the token bucket.
  upstream.on('data', (chunk: Buffer) => {
    clientTurn = false;
    if (nextResponseAt !== undefined) {
      // A response starts: held until its latency has passed, then sent from a near-empty bucket.
      gateAt =
        link.latencyFrom === 'response'
          ? performance.now() + link.latencyMs
          : Math.max(performance.now(), nextResponseAt);
      tokens = INITIAL_BYTES;
      refilledAt = gateAt;
      nextResponseAt = undefined;
    }
    queue.push(chunk);
    queuedBytes += chunk.length;
    pump();
  });
  upstream.on('end', () => {
    upstreamEnded = true;
    pump();
  });
  client.on('drain', () => {
    awaitingDrain = false;
    pump();
  });

  function pump(): void {
    clearTimeout(timer);
    timer = undefined;
    if (client.destroyed) return;
    const now = performance.now();
    if (now > refilledAt) {
      tokens = Math.min(link.burstBytes, tokens + ((now - refilledAt) / 1000) * link.bytesPerSec);
      refilledAt = now;
    }
    if (now < gateAt) {
      if (queuedBytes > 0) schedule(gateAt - now);
    } else {
      send();
    }
    if (queuedBytes >= link.queueHighWaterBytes || awaitingDrain) upstream.pause();
    else upstream.resume();
    if (queuedBytes === 0 && upstreamEnded && !client.writableEnded) client.end();
  }

  /** Writes what the bucket allows (nothing under INITIAL_BYTES but a chunk's tail), then waits for a slice's worth. */
  function send(): void {
    // Bounded: each turn removes at least one byte from the queue, or stops.
    while (queue.length > 0 && !awaitingDrain) {
      const head = queue[0] as Buffer;
      const size = Math.min(head.length, Math.floor(tokens));
      if (size < Math.min(head.length, INITIAL_BYTES)) break;
      if (size === head.length) queue.shift();
      else queue[0] = head.subarray(size);
      tokens -= size;
      queuedBytes -= size;
      link.stats.bytesToClient += size;
      if (!client.write(head.subarray(0, size))) awaitingDrain = true;
    }
    if (queue.length > 0 && !awaitingDrain) {
      const wanted = Math.min((queue[0] as Buffer).length, link.sliceBytes);
      schedule(((wanted - tokens) / link.bytesPerSec) * 1000);
    }
  }

  function schedule(ms: number): void {
    timer = setTimeout(pump, Math.max(1, Math.ceil(ms)));
  }
}

/**
 * Host and port of an `http://` loopback URL; anything else is refused, so the shaper never reaches off the machine.
 */
function loopbackTarget(target: string): { host: string; port: number } {
  const url = new URL(target);
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || url.port === '') {
    throw new Error(`expected a target like http://127.0.0.1:PORT, got ${target}`);
  }
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}
