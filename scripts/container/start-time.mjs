#!/usr/bin/env node
// Container start to healthy, the image's goal of ≤ 1.5 s (issue 25): the median of RUNS (5)
// starts of `podman run -d -p 127.0.0.1:PORT:4010 IMAGE` until GET /__admin/health answers 200
// from the host, each next to podman's own floor measured in the same minute: `podman run --rm
// BASE true` (the image's base, from its org.opencontainers.image.base.name label). On a loaded
// machine the floor moves with the load, so compare the two, not the absolute numbers; the mock's
// own CPU time until healthy (/proc/1/stat in the container) is what load does not inflate.
//   node scripts/container/start-time.mjs [IMAGE]     (default: $SHIPMOCK_TEST_IMAGE, else image.sh builds it)
//   RUNS=9 node scripts/container/start-time.mjs localhost/shipmock:dev
// Needs podman (scripts/container/containers.conf is used unless CONTAINERS_CONF names another).
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? `${here}containers.conf` };
const runs = Number(process.env.RUNS ?? 5);

function run(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
  return result.stdout.trim();
}
const podman = (...args) => run('podman', args);

const image = process.argv[2] ?? process.env.SHIPMOCK_TEST_IMAGE ?? run('bash', [`${here}image.sh`]).split('\n').pop();
const base = podman('image', 'inspect', '--format', '{{index .Labels "org.opencontainers.image.base.name"}}', image);

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** GET /__admin/health on a connection of its own: its status, or 0 when nothing answers yet. */
const health = (port) =>
  new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/__admin/health', agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
    req.end();
  });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = [];
for (let i = 0; i < runs; i++) {
  const floorStarted = performance.now();
  podman('run', '--rm', base, 'true');
  const floor = performance.now() - floorStarted;

  // A free port chosen first, so no `podman port` call sits inside the measured time.
  const port = await freePort();
  const name = `shipmock-start-time-${process.pid}-${i}`;
  const started = performance.now();
  podman('run', '--detach', '--name', name, '--publish', `127.0.0.1:${port}:4010`, image);
  const runReturned = performance.now() - started;
  try {
    for (;;) {
      if ((await health(port)) === 200) break;
      if (performance.now() - started > 60_000) throw new Error(`${name} not healthy within 60 s:\n${podman('logs', name)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const healthy = performance.now() - started;
    // The CPU the mock (PID 1) used until then: what load on the machine does not inflate.
    const stat = podman('exec', name, 'cat', '/proc/1/stat').split(') ')[1].split(' ');
    rows.push({ floor, runReturned, healthy, cpu: (Number(stat[11]) + Number(stat[12])) * 10 });
  } finally {
    spawnSync('podman', ['rm', '--force', '--volumes', '--time', '0', name], { env, stdio: 'ignore' });
  }
  const last = rows.at(-1);
  console.log(`run ${i + 1}: podman run --rm base true ${Math.round(last.floor)} ms; podman run -d returned ${Math.round(last.runReturned)} ms; healthy ${Math.round(last.healthy)} ms; the mock's CPU until then ${last.cpu} ms`);
}
const floor = median(rows.map((r) => r.floor));
const healthy = median(rows.map((r) => r.healthy));
console.log(
  `${image}: container start to healthy, median of ${runs}: ${Math.round(healthy)} ms ` +
    `(podman run -d returned after ${Math.round(median(rows.map((r) => r.runReturned)))} ms; ` +
    `podman run --rm ${base} true: ${Math.round(floor)} ms, so ${Math.round(healthy - floor)} ms above podman's floor; ` +
    `the mock's CPU (user + system) until healthy: ${median(rows.map((r) => r.cpu))} ms)`,
);
