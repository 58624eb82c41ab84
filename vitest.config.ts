import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads `graphql` through its CommonJS entry for Pothos and yoga; vite would pick the `.mjs`
    // build for our sources, and two copies of graphql refuse each other's schema objects.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    isolate: true,
    // `isolate` stays on (a fresh process per file), although reusing workers (`isolate: false`) cut a
    // 16-file subset from 112 s to 65 s: in a whole run, follower loops and worker processes some files
    // leave running outlive them, tick against databases that are gone and time out later files.
    // Two cores: one Postgres for the run, one anvil per worker, two workers.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
