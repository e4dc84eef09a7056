// Every test under test/, run from the project root. Integration tests start real servers
// (s3rver, workerd), hence the long timeouts, and forks so each file owns its processes.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two files at once, whatever the machine: vitest's default (cores − 1) is one on a 2-core CI machine, where most
    // files spend their time waiting on servers and timers, not on a core (the whole suite: 10 min one at a time,
    // 6.7 min two at once, on this 2-core machine). Files never share a port or a folder (each starts its own servers).
    maxWorkers: 2,
  },
});
