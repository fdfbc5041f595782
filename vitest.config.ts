import { defineConfig } from 'vitest/config';

// Pact consumer tests write pact files that provider verification reads, so they run as
// separate projects in order (see scripts/run-tests.mjs), never racing in one run.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit-api',
          include: ['src/**/*.test.ts', 'test/api/**/*.test.ts', 'test/contract-lint/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts', 'test/examples/**/*.test.ts', 'test/durability/**/*.test.ts', 'test/architecture/**/*.test.ts', 'test/readme/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/can-i-deploy/**/*.test.ts', 'test/contract-diff/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'pact-consumer',
          include: ['test/contract/consumer/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Every file writes into the same pact file: one writer at a time, from empty files;
          // one shared worker, so the Pact native library loads once, not once per file.
          fileParallelism: false,
          isolate: false,
          globalSetup: ['test/contract/consumer/support/global-setup.ts'],
        },
      },
      {
        test: { name: 'pact-provider', include: ['test/contract/provider/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 60_000 },
      },
      {
        // The image from the Dockerfile, compose.yaml and the Testcontainers example, with podman
        // (test/container/container-support.ts): one file at a time, they share the image build.
        test: {
          name: 'container',
          include: ['test/container/**/*.test.ts', 'examples/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 30 * 60_000,
          fileParallelism: false,
          globalSetup: ['test/container/global-setup.ts'],
        },
      },
    ],
  },
});
