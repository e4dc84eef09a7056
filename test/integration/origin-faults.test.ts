// Fault injection a real S3 server cannot do: a dead port, and an origin that accepts the
// connection but never answers.

import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { request } from './fixture.ts';

const S3 = {
  ORIGIN_KIND: 's3',
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'k',
  S3_SECRET_ACCESS_KEY: 's',
  SHIELD_TOKEN: 't',
};
let stack: Stack | undefined;
let server: Server | undefined;

afterEach(async () => {
  await stack?.dispose();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  stack = undefined;
  server = undefined;
});

describe('origin failures', () => {
  it('asks a GET once more on a fresh connection when a kept-alive one fails before any answer (a site that sent more than its Content-Length)', async () => {
    // A raw origin: the first answer says 5 bytes and sends 36, and keeps the connection; what
    // is left over is garbage where the next answer's status line should be.
    let answered = 0;
    const sockets = new Set<Socket>();
    const raw = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('data', (chunk: Buffer) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        const first = answered++ === 0;
        socket.write(
          first
            ? 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nCache-Control: no-store\r\n\r\nhello, and thirty-one bytes too many'
            : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nCache-Control: no-store\r\n\r\nok',
        );
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as AddressInfo;
    try {
      stack = await startWorkers({
        config: { ORIGIN_KIND: 'http', ORIGIN_URL: `http://127.0.0.1:${port}`, SHIELD_TOKEN: 't' },
      });
      expect((await request(new URL('/one', stack.url))).text).toBe('hello');
      for (let i = 0; i < 3; i++) {
        const next = await request(new URL(`/next-${i}`, stack.url));
        expect([next.status, next.text]).toEqual([200, 'ok']);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('answers 502 when the origin cannot be reached', async () => {
    const deadPort = await freePort();
    stack = await startWorkers({ config: { ...S3, ORIGIN_URL: `http://127.0.0.1:${deadPort}` } });
    const answer = await request(new URL('/index.html', stack.url));
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('origin could not be reached');
    expect(answer.headers.get('cache-status')).toContain('tiercache-shield');
  });

  it('answers 504 once the origin has not answered within ORIGIN_TIMEOUT_MS', async () => {
    server = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    stack = await startWorkers({ config: { ...S3, ORIGIN_URL: `http://127.0.0.1:${port}`, ORIGIN_TIMEOUT_MS: '300' } });
    const answer = await request(new URL('/index.html', stack.url));
    expect(answer.status).toBe(504);
    expect(answer.text).toContain('within 300 ms');
  });

  it('answers 500 with a message when the configuration cannot work, never echoing secrets', async () => {
    stack = await startWorkers({
      config: { ORIGIN_KIND: 's3', S3_SECRET_ACCESS_KEY: 'super-secret', SHIELD_TOKEN: 't' },
    });
    const answer = await request(new URL('/index.html', stack.url));
    expect(answer.status).toBe(500);
    expect(answer.text).not.toContain('super-secret');
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
