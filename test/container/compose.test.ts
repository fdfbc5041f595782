import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { call, liveAccount } from '../support/live-mock.js';
import { containerScript, containerSkipReason, freePort, podman, podmanStatus, ROOT, shipmockImage, uniqueName, untilHealthy } from './container-support.js';

/**
 * compose.yaml, as README "Run it as a container" starts it, with podman-compose: PostgreSQL and
 * two shipmock containers (each --workers 2) on it, one mock. The postgres image is built here
 * from Debian's PostgreSQL (no registry: scripts/container/postgres-image.sh).
 */
const skip = containerSkipReason() ?? (spawnSync('podman-compose', ['version'], { encoding: 'utf8' }).status === 0 ? undefined : 'podman-compose is not installed');
const ADMIN_KEY = 'compose-test-admin-key';

describe.skipIf(skip)('compose.yaml: a shared sandbox on PostgreSQL', () => {
  const project = uniqueName('compose');
  let env: NodeJS.ProcessEnv;
  let urls: string[];

  const compose = (args: string[], timeoutMs = 300_000) => {
    const result = spawnSync('podman-compose', ['-p', project, '-f', 'compose.yaml', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: timeoutMs });
    if (result.status !== 0) throw new Error(`podman-compose ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr.slice(-4000)}\n${result.stdout.slice(-4000)}`);
    return result.stdout;
  };

  beforeAll(async () => {
    // Services find each other by name through CNI's dnsname plugin (.ci/run installs it).
    if (!existsSync('/usr/lib/cni/dnsname')) throw new Error('compose needs container name resolution: apt-get install golang-github-containernetworking-plugin-dnsname');
    const postgres = containerScript('postgres-image.sh').name;
    const ports = [await freePort(), await freePort()];
    env = {
      ...process.env,
      CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? `${ROOT}scripts/container/containers.conf`,
      SHIPMOCK_IMAGE: shipmockImage(),
      SHIPMOCK_POSTGRES_IMAGE: postgres,
      SHIPMOCK_ADMIN_KEY: ADMIN_KEY,
      SHIPMOCK_PUBLISH_PORT: `127.0.0.1:${ports[0]}`,
      SHIPMOCK_REPLICA_PUBLISH_PORT: `127.0.0.1:${ports[1]}`,
    };
    const started = performance.now();
    compose(['up', '--detach']);
    urls = ports.map((port) => `http://127.0.0.1:${port}`);
    for (const url of urls) await untilHealthy(url, 120_000);
    console.log(`compose up to both replicas healthy: ${Math.round(performance.now() - started)} ms`);
  }, 30 * 60_000);

  afterAll(() => {
    if (!env) return;
    compose(['down', '--volumes']);
    // podman-compose 1.0.3 leaves the project's network behind.
    podmanStatus(['network', 'rm', '--force', `${project}_default`]);
  }, 300_000);

  it('starts PostgreSQL and both replicas, healthy by their own health checks', () => {
    for (const service of ['postgres', 'shipmock', 'shipmock-replica']) {
      const container = `${project}_${service}_1`;
      expect(podmanStatus(['healthcheck', 'run', container]).status, service).toBe(0);
      expect(podman(['inspect', '--format', '{{.State.Health.Status}}', container]), service).toBe('healthy');
    }
  });

  it('is one mock: an account and address written on one replica are read on the other, and the control plane agrees', async () => {
    const [one, other] = urls.map((url) => ({ url, credentials: { companyId: '', clientId: '', clientSecret: '' } }) as unknown as RunningMock);
    const credentials = await fetch(`${one.url}/__admin/credentials`, { headers: { 'X-Admin-Key': ADMIN_KEY } });
    expect(credentials.status).toBe(200);
    const company = ((await credentials.json()) as { companies: Array<{ companyId: string; clientId: string; clientSecret: string }> }).companies[0];
    one.credentials = other.credentials = company as RunningMock['credentials'];
    const account = await liveAccount(one);
    const address = await call(one, 'POST', '/v1/addresses', { auth: account.auth, body: { name: 'Shared', street: 'Gleis 1', city: 'Leipzig', postalCode: '04109', countryCode: 'DE' } });
    expect(address.status).toBe(201);
    // The token the first replica issued is accepted by the second (one token secret, one state).
    const read = await call(other, 'GET', `/v1/addresses/${address.body.id}`, { auth: account.auth });
    expect(read.status).toBe(200);
    expect(read.body.city).toBe('Leipzig');
    const overview = await fetch(`${urls[1]}/__admin/state/overview`, { headers: { 'X-Admin-Key': ADMIN_KEY } });
    expect(overview.status).toBe(200);
    expect(JSON.stringify(await overview.json())).toContain(account.accountId);
    expect((await fetch(`${urls[1]}/__admin/state/overview`)).status).toBe(401);
  });
});

if (skip) {
  describe('compose.yaml (skipped)', () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
}
