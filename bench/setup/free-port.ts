// A loopback port free right now, for a process that needs its port named before it starts
// (varnishd, nginx, workerd, wrangler, workerd's inspector).

import { createServer } from 'node:net';

/** Free right now: another process may still take it before the one it is meant for binds. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}
