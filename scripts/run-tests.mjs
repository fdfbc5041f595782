#!/usr/bin/env node
// The project's test command (npm test). Runs the vitest projects in order — unit and API
// tests, then Pact consumer tests (which write pacts/), then provider verification (which
// reads them) — and ends with the plain line "N passed, N failed" that CI reads.
// Extra arguments are passed to every vitest run (e.g. a file filter).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outDir = join(root, 'test-results');
mkdirSync(outDir, { recursive: true });
const extra = process.argv.slice(2);

const projects = [
  { name: 'unit-api', dirs: ['src', 'test/api', 'test/contract-lint', 'test/e2e', 'test/reliability', 'test/examples', 'test/durability', 'test/architecture', 'test/readme', 'test/browser', 'test/can-i-deploy', 'test/contract-diff'] },
  // A representative part of the API tests again on the durable store (SQLite file per harness).
  {
    name: 'unit-api',
    report: 'unit-api-sqlite',
    dirs: ['test/api'],
    env: { SHIPMOCK_TEST_STORE: 'sqlite' },
    files: ['test/api/accounts.test.ts', 'test/api/parcels.test.ts', 'test/api/shipment-bookings.test.ts', 'test/api/event-channels.test.ts', 'test/api/isolation.test.ts', 'test/api/trackers.test.ts', 'test/api/admin-control.test.ts'],
  },
  { name: 'pact-consumer', dirs: ['test/contract/consumer'] },
  { name: 'pact-provider', dirs: ['test/contract/provider'] },
  // The container image, compose.yaml and the Testcontainers example (podman; .ci/run installs it).
  { name: 'container', dirs: ['test/container', 'examples'] },
];

const hasTests = (dir) => {
  const full = join(root, dir);
  if (!existsSync(full)) return false;
  const walk = (d) => readdirSync(d, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.test.ts')));
  return walk(full);
};

// The CLI tests run the real bin/shipmock.js, which runs the compiled dist/.
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  console.error('npm run build failed');
  process.exit(1);
}

let passed = 0;
let failed = 0;
let broken = false;
for (const project of projects) {
  if (!project.dirs.some(hasTests)) continue;
  const outputFile = join(outDir, `${project.report ?? project.name}.json`);
  const result = spawnSync(
    'npx',
    ['vitest', 'run', '--project', project.name, '--reporter=default', '--reporter=json', `--outputFile=${outputFile}`, ...(project.files ?? []), ...extra],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...project.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR } },
  );
  if (!existsSync(outputFile)) {
    broken = true;
    console.error(`vitest project ${project.name} wrote no report (exit ${result.status})`);
    continue;
  }
  const report = JSON.parse(readFileSync(outputFile, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A suite that fails to load counts no tests but must still fail the run.
  if (result.status !== 0 && report.numFailedTests === 0) {
    broken = true;
    console.error(`vitest project ${project.name} exited ${result.status} (a file failed to load?)`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || broken || passed === 0 ? 1 : 0);
