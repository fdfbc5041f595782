import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * Podman for the container tests: the image built from the root Dockerfile by
 * scripts/container/image.sh (local base images, no registry), containers on ports of 127.0.0.1
 * that podman picks, and cleanup. The tests skip, saying why, only where podman is not installed;
 * under CI (.ci/run installs it) a missing podman fails them.
 */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONTAINER_SCRIPTS = `${ROOT}scripts/container`;
/** podman's settings for this host (runc, ulimits within the hard limits): every podman this suite starts reads them. */
export const CONTAINERS_CONF = process.env.CONTAINERS_CONF ?? `${CONTAINER_SCRIPTS}/containers.conf`;

const podmanFound = spawnSync('podman', ['--version'], { encoding: 'utf8' }).status === 0;

/** Why the container tests cannot run here, or undefined when they can. Throws under CI. */
export function containerSkipReason(): string | undefined {
  if (process.env.SHIPMOCK_TEST_CONTAINER_SKIP) return process.env.SHIPMOCK_TEST_CONTAINER_SKIP;
  if (podmanFound) return undefined;
  const reason = 'podman is not installed (apt-get install podman buildah debootstrap podman-compose runc, as .ci/run does)';
  if (process.env.CI) throw new Error(`The container tests must run in CI, but ${reason}`);
  console.warn(`SKIPPED container tests: ${reason}`);
  return reason;
}

function run(command: string, args: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; input?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    input: options.input,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CONTAINERS_CONF, ...options.env },
  });
}

/** `podman ARGS`; throws with podman's own words when it fails. */
export function podman(args: string[], options: { timeoutMs?: number } = {}): string {
  const result = run('podman', args, options);
  if (result.status !== 0) throw new Error(`podman ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stderr}${result.stdout}`);
  return result.stdout.trim();
}

/** `podman ARGS` that may fail: its exit code and output. */
export function podmanStatus(args: string[]): { status: number | null; out: string } {
  const result = run('podman', args);
  return { status: result.status, out: `${result.stdout}${result.stderr}`.trim() };
}

/** One of scripts/container/*.sh; its last line of output (an image name). */
export function containerScript(script: string, timeoutMs = 30 * 60_000): { name: string; seconds: number } {
  const started = performance.now();
  const result = run('bash', [`${CONTAINER_SCRIPTS}/${script}`], { timeoutMs });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`scripts/container/${script} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stderr.slice(-6000)}`);
  const name = result.stdout.trim().split('\n').pop()!;
  // The CI log says what the image costs (README, Run it as a container).
  console.log(`scripts/container/${script}: ${name} in ${seconds.toFixed(1)} s`);
  return { name, seconds };
}

let image: string | undefined;
/** The shipmock image of this checkout (built by global-setup.ts, else here; podman caches layers). */
export function shipmockImage(): string {
  image ??= process.env.SHIPMOCK_TEST_IMAGE ?? containerScript('image.sh').name;
  return image;
}

/** A name no other test run uses. */
export function uniqueName(what: string): string {
  return `shipmock-test-${what}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The host port podman published a container's port on. */
export function publishedUrl(container: string, port = 4010): string {
  const mapping = podman(['port', container, `${port}/tcp`]).split('\n')[0];
  return `http://127.0.0.1:${mapping.slice(mapping.lastIndexOf(':') + 1)}`;
}

/**
 * GET /__admin/health on a connection of its own: polling must leave no idle keep-alive
 * connection in fetch's pool, which the server closes after 5 s while a later test reuses it.
 */
function healthStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/__admin/health`, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** GET /__admin/health until it answers 200; the milliseconds that took. */
export async function untilHealthy(url: string, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      if ((await healthStatus(url)) === 200) return performance.now() - started;
    } catch {
      // Not listening yet (or the port forwarder is up before the server).
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${url} not healthy within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until a container's log has a line matching `pattern`; the whole log. */
export async function untilLogged(container: string, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = podmanStatus(['logs', container]).out;
    if (pattern.test(log)) return log;
    if (Date.now() > deadline) throw new Error(`${container} never logged ${pattern}:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The start banner's fields ("company id  …"). */
export function bannerField(banner: string, label: string): string {
  const match = new RegExp(`^\\s*${label}\\s+(\\S+)`, 'm').exec(banner);
  if (!match) throw new Error(`no "${label}" in the banner:\n${banner}`);
  return match[1];
}

/** A free TCP port of 127.0.0.1 (for compose files, whose published ports are fixed). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Removes containers and volumes, ignoring those already gone. */
export function removeContainers(...names: string[]): void {
  for (const name of names) podmanStatus(['rm', '--force', '--volumes', '--time', '2', name]);
}

export function removeVolumes(...names: string[]): void {
  for (const name of names) podmanStatus(['volume', 'rm', '--force', name]);
}
