// Where the local workerd keeps what Miniflare stores (local/store-root.ts): in memory when the machine has it, so a
// commit's sync never stops a tier's one thread; and the directory goes with the stack.

import { access, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directSocket, moduleWorker, startDirectMiniflare } from '../../local/direct-miniflare.ts';
import { MEMORY_DIR, STORE_DIR_VARIABLE, storeRoot } from '../../local/store-root.ts';

const everywhere = (): boolean => true;
const nowhere = (): boolean => false;

describe('the store root', () => {
  it('is the memory directory when it is writable, else the temporary directory', () => {
    expect(storeRoot({}, everywhere, '/tmp')).toBe(MEMORY_DIR);
    expect(storeRoot({}, nowhere, '/tmp')).toBe('/tmp');
    expect(storeRoot({}, (path) => path !== MEMORY_DIR, '/var/tmp')).toBe('/var/tmp');
  });

  it(`is ${STORE_DIR_VARIABLE} when it is set, and not when it is empty`, () => {
    expect(storeRoot({ [STORE_DIR_VARIABLE]: '/srv/cache' }, everywhere, '/tmp')).toBe('/srv/cache');
    expect(storeRoot({ [STORE_DIR_VARIABLE]: '/srv/cache' }, nowhere, '/tmp')).toBe('/srv/cache');
    expect(storeRoot({ [STORE_DIR_VARIABLE]: '' }, nowhere, '/tmp')).toBe('/tmp');
  });
});

describe("a started workerd's store", () => {
  it('is a directory of its own under the store root, where the Cache API writes, gone once the workerd is stopped', async () => {
    const script = `export default { async fetch() {
      await caches.default.put('http://kept.test/a', new Response('kept', { headers: { 'cache-control': 'max-age=60' } }));
      return new Response(await (await caches.default.match('http://kept.test/a')).text());
    } }`;
    const started = await startDirectMiniflare([{ ...moduleWorker('w', script), ...directSocket(0) }]);
    const root = storeRoot(process.env, (path) => path === MEMORY_DIR && process.platform === 'linux', tmpdir());
    try {
      expect(started.storeDir).toMatch(new RegExp(`^${root}/tiercache-store-[^/]+$`));
      const url = started.urls.get('w');
      expect(await (await fetch(new URL('/', url))).text()).toBe('kept');
      // The cache's entries are in the store directory (Miniflare keeps them in SQLite under cache/), not elsewhere.
      expect((await readdir(join(started.storeDir, 'cache'), { recursive: true })).join(' ')).toMatch(/\.sqlite/);
    } finally {
      await started.stop();
    }
    await expect(access(started.storeDir)).rejects.toThrow();
  });
});
