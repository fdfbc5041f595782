import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTAINERS_CONF, containerScript, containerSkipReason, podmanStatus } from './container-support.js';

/**
 * Before the container project's files: the image is built once (test/container and the
 * Testcontainers example under examples/ read its name from SHIPMOCK_TEST_IMAGE), and podman
 * serves its Docker-compatible API on a socket of this run for Testcontainers (DOCKER_HOST),
 * stopped afterwards. Where podman is absent the files skip (containerSkipReason says why).
 */
export default async function setup(): Promise<(() => void) | undefined> {
  const skip = containerSkipReason();
  if (skip) {
    process.env.SHIPMOCK_TEST_CONTAINER_SKIP = skip;
    return undefined;
  }
  // An image named by SHIPMOCK_TEST_IMAGE is tested as it is (e.g. one built under another name by image.sh NAME).
  process.env.SHIPMOCK_TEST_IMAGE ??= containerScript('image.sh').name;
  if (process.env.DOCKER_HOST) return undefined;
  const socket = join(tmpdir(), `shipmock-podman-${process.pid}.sock`);
  // The service creates Testcontainers' containers: without this host's settings runc fails them
  // ("error setting rlimit type 7: operation not permitted") unless the shell happened to export CONTAINERS_CONF.
  const service: ChildProcess = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore', env: { ...process.env, CONTAINERS_CONF } });
  const deadline = Date.now() + 30_000;
  while (!existsSync(socket)) {
    if (Date.now() > deadline || service.exitCode !== null) throw new Error(`podman system service did not open ${socket}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.env.DOCKER_HOST = `unix://${socket}`;
  // Ryuk (Testcontainers' reaper container) cannot be pulled here; the example stops its containers itself.
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  console.log(`podman serves the Docker API on ${process.env.DOCKER_HOST} (${podmanStatus(['--version']).out})`);
  return () => {
    service.kill('SIGTERM');
    rmSync(socket, { force: true });
  };
}
