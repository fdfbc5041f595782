#!/usr/bin/env node
// The project's test command (npm test). Runs the vitest projects in two lanes at once:
//  - unit and API tests (with their SQLite variant, in the same vitest run, two files at a time),
//    then the few unit-api files that bound wall time, one at a time (`solo` below), then the Pact
//    consumer tests (which rewrite pacts/, which some unit tests read), then provider
//    verification (which reads them);
//  - the container tests (the image's build context leaves pacts/ and test-results/ out, so they
//    race with nothing of the other lane); their output is printed when they end.
// and ends with the plain line "N passed, N failed" that CI reads.
// Extra arguments are passed to every vitest run (e.g. a file filter).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outDir = join(root, 'test-results');
mkdirSync(outDir, { recursive: true });
const extra = process.argv.slice(2);

const unitApiDirs = ['src', 'test/api', 'test/contract-lint', 'test/e2e', 'test/reliability', 'test/examples', 'test/durability', 'test/architecture', 'test/readme', 'test/browser', 'test/can-i-deploy', 'test/contract-diff'];
/**
 * unit-api files that bound wall time in milliseconds (an event-loop wait, a request's duration):
 * they run after the others, one at a time, so another file's processes never share the cores
 * with them. The rest of unit-api runs two files at a time (vitest.config.ts).
 */
const solo = [
  'test/durability/data-file.test.ts',
  'test/api/slow-clients.test.ts',
  'test/api/inspector-routes.test.ts',
  'test/reliability/hostile-scenarios.test.ts',
  'test/reliability/validation-cost.test.ts',
  'src/rendering/documents.test.ts',
  'src/scenarios/glob-matcher.test.ts',
  'src/scenarios/linear-pattern.test.ts',
];
// With a file filter (extra arguments) unit-api runs as one, filtered run.
const unitApi = extra.length
  ? [{ name: 'unit-api', projects: ['unit-api', 'unit-api-sqlite'], dirs: unitApiDirs }]
  : [
      { name: 'unit-api', projects: ['unit-api', 'unit-api-sqlite'], dirs: unitApiDirs, args: solo.flatMap((file) => ['--exclude', file]) },
      { name: 'unit-api-solo', projects: ['unit-api'], dirs: unitApiDirs, args: ['--maxWorkers=1', ...solo] },
    ];
const lanes = [
  [
    // unit-api-sqlite: a representative part of the API tests again on the durable store.
    ...unitApi,
    { name: 'pact-consumer', dirs: ['test/contract/consumer'] },
    { name: 'pact-provider', dirs: ['test/contract/provider'] },
  ],
  // The container image, compose.yaml and the Testcontainers example (podman; .ci/run installs it).
  [{ name: 'container', dirs: ['test/container', 'examples'], quiet: true }],
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

/** One vitest run; resolves to its report's counts (and whether it broke without a failed test). */
function runProject(project) {
  const outputFile = join(outDir, `${project.name}.json`);
  const args = ['vitest', 'run', ...(project.projects ?? [project.name]).flatMap((name) => ['--project', name]), '--reporter=default', '--reporter=json', `--outputFile=${outputFile}`, ...(project.args ?? []), ...extra];
  const env = { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR };
  // A quiet run's output goes to test-results/NAME.log and is printed when it ends, not interleaved.
  const log = project.quiet ? join(outDir, `${project.name}.log`) : undefined;
  const child = spawn('npx', args, { cwd: root, stdio: log ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
  const output = [];
  if (log) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (status) => {
      if (log) {
        const text = Buffer.concat(output).toString('utf8');
        writeFileSync(log, text);
        process.stdout.write(`\n----- ${project.name} (${log}) -----\n${text}----- end of ${project.name} -----\n`);
      }
      if (!existsSync(outputFile)) {
        console.error(`vitest project ${project.name} wrote no report (exit ${status})`);
        return resolve({ passed: 0, failed: 0, broken: true });
      }
      const report = JSON.parse(readFileSync(outputFile, 'utf8'));
      // A suite that fails to load counts no tests but must still fail the run.
      const broken = status !== 0 && report.numFailedTests === 0;
      if (broken) console.error(`vitest project ${project.name} exited ${status} (a file failed to load?)`);
      resolve({ passed: report.numPassedTests, failed: report.numFailedTests, broken, failures: failuresOf(report) });
    });
  });
}

/** The failed tests of a vitest JSON report: file, name and the first lines of the first failure. */
function failuresOf(report) {
  return (report.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((test) => test.status === 'failed')
      .map((test) => ({
        file: file.name.startsWith(root) ? file.name.slice(root.length) : file.name,
        name: test.fullName,
        message: String(test.failureMessages?.[0] ?? '').split('\n').slice(0, 6).join('\n'),
      })),
  );
}

async function runLane(lane) {
  const results = [];
  for (const project of lane) {
    if (!project.dirs.some(hasTests)) continue;
    results.push(await runProject(project));
  }
  return results;
}

// Reports of an earlier run go first, so a stale one is never read as this run's.
for (const project of lanes.flat()) rmSync(join(outDir, `${project.name}.json`), { force: true });
const results = (await Promise.all(lanes.map(runLane))).flat();
const passed = results.reduce((sum, r) => sum + r.passed, 0);
const failed = results.reduce((sum, r) => sum + r.failed, 0);
const broken = results.some((r) => r.broken);
// The failures again, last: CI keeps only the tail of a long output.
for (const failure of results.flatMap((r) => r.failures ?? [])) {
  console.log(`FAILED ${failure.file} > ${failure.name}\n${failure.message.replace(/^/gm, '    ')}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || broken || passed === 0 ? 1 : 0);
