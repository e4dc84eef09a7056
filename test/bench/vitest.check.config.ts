// `npm run bench:check`: the bench's own checks that wait out timeouts and durations or need the
// peers (Varnish, nginx) installed, so they stay out of `npm test` (test/**/*.test.ts):
// test/bench/**/*.check.ts. They measure, so they run one file at a time; each prints the table
// it checked. Checks of a peer or tool that is not installed are skipped, and say so.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/bench/**/*.check.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
