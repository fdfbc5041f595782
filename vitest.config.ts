import { defineConfig } from 'vitest/config';

// Pact consumer tests write pact files that provider verification reads, so they run as
// separate projects in order (see scripts/run-tests.mjs), never racing in one run.

/**
 * Test files of unit-api (and its SQLite variant) run two at a time. Vitest's default is one
 * worker fewer than the cores, which on CI's two cores is one: every file waited for the one
 * before it, although most of a file's time is spent waiting on the processes, browsers, sockets
 * and databases it started. Each file still gets a process of its own (isolate), so two files
 * share no module state; they use free ports and temporary folders only.
 */
const UNIT_API_WORKERS = 2;
const unitApiTimeouts = { testTimeout: 30_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit-api',
          include: ['src/**/*.test.ts', 'test/api/**/*.test.ts', 'test/contract-lint/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts', 'test/examples/**/*.test.ts', 'test/durability/**/*.test.ts', 'test/architecture/**/*.test.ts', 'test/readme/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/can-i-deploy/**/*.test.ts', 'test/contract-diff/**/*.test.ts'],
          ...unitApiTimeouts,
          maxWorkers: UNIT_API_WORKERS,
        },
      },
      {
        // A representative part of the API tests again on the durable store (a SQLite file per
        // harness, test/support/harness.ts). Same workers as unit-api, so one vitest run mixes the
        // two projects' files (scripts/run-tests.mjs runs them together).
        test: {
          name: 'unit-api-sqlite',
          include: ['test/api/accounts.test.ts', 'test/api/parcels.test.ts', 'test/api/shipment-bookings.test.ts', 'test/api/event-channels.test.ts', 'test/api/isolation.test.ts', 'test/api/trackers.test.ts', 'test/api/admin-control.test.ts'],
          env: { SHIPMOCK_TEST_STORE: 'sqlite' },
          ...unitApiTimeouts,
          maxWorkers: UNIT_API_WORKERS,
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
          setupFiles: ['test/container/fresh-connections.ts'],
        },
      },
    ],
  },
});
