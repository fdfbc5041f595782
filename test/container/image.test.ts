import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { liveBooking } from '../support/live-booking.js';
import { call, liveAccount } from '../support/live-mock.js';
import { defineConformanceSuite, type ConformanceTarget } from '../e2e/conformance-suite.js';
import {
  bannerField,
  containerSkipReason,
  freePort,
  podman,
  podmanStatus,
  publishedUrl,
  removeContainers,
  removeVolumes,
  ROOT,
  shipmockImage,
  uniqueName,
  untilHealthy,
  untilLogged,
} from './container-support.js';

/**
 * shipmock's image, built from the root Dockerfile and run with podman: what `docker run -p
 * 4010:4010 shipmock` gives a user (README, Run it as a container).
 */
const skip = containerSkipReason();
const MiB = 1024 * 1024;
const BUILD_TIMEOUT = 30 * 60_000;

/** A mock in a container as the shared test helpers know one: its URL (on the host) and credentials. */
function mockOf(target: ConformanceTarget): RunningMock {
  return { url: target.url, credentials: { companyId: target.companyId, clientId: target.clientId, clientSecret: target.clientSecret } } as unknown as RunningMock;
}

function targetOf(url: string, banner: string): ConformanceTarget {
  return { url, companyId: bannerField(banner, 'company id'), clientId: bannerField(banner, 'client id'), clientSecret: bannerField(banner, 'client secret') };
}

/** Starts a container of the image on a port podman picks; its URL, banner and how long it took to answer health. */
async function startContainer(name: string, options: { volume?: string; env?: Record<string, string>; args?: string[] } = {}) {
  const image = shipmockImage();
  // The host port is chosen before the clock starts: a `podman port` call (0.1–0.8 s here) is no part of the start.
  const port = await freePort();
  const started = performance.now();
  podman([
    'run', '--detach', '--name', name, '--publish', `127.0.0.1:${port}:4010`,
    ...(options.volume ? ['--volume', `${options.volume}:/data`] : []),
    ...Object.entries(options.env ?? {}).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
    image, ...(options.args ?? []),
  ]);
  const url = `http://127.0.0.1:${port}`;
  await untilHealthy(url);
  const toHealthyMs = performance.now() - started;
  const banner = await untilLogged(name, /company token/);
  return { url, banner, toHealthyMs };
}

describe.skipIf(skip)('the container image', () => {
  const container = uniqueName('image');
  const volume = uniqueName('data');
  const second = uniqueName('image-again');
  let target: ConformanceTarget;
  let banner: string;
  let adminKey: string;

  beforeAll(async () => {
    shipmockImage();
    const first = await startContainer(container, { volume, env: { SHIPMOCK_SEED: '3' } });
    console.log(`container start to healthy: ${Math.round(first.toHealthyMs)} ms (podman run -d … until GET /__admin/health answers 200)`);
    banner = first.banner;
    target = targetOf(first.url, banner);
    adminKey = bannerField(banner, 'admin key');
  }, BUILD_TIMEOUT);

  afterAll(() => {
    removeContainers(container, second);
    removeVolumes(volume);
  });

  describe('conformance: shipmock in a container', () => {
    defineConformanceSuite(() => target);
  });

  it('adds at most 150 MiB to its base and is described as the Dockerfile says', () => {
    const image = shipmockImage();
    const [size, base] = [image, podman(['image', 'inspect', '--format', '{{index .Labels "org.opencontainers.image.base.name"}}', image]) || undefined].map((name) =>
      name === undefined ? Number.NaN : Number(podman(['image', 'inspect', '--format', '{{.Size}}', name])),
    );
    const added = size - base;
    console.log(`image ${image}: ${(size / MiB).toFixed(1)} MiB, ${(added / MiB).toFixed(1)} MiB on its base`);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(150 * MiB);
    const config = JSON.parse(podman(['image', 'inspect', '--format', '{{json .Config}}', image])) as Record<string, any>;
    expect(config.User).toBe('10001:10001');
    expect(Object.keys(config.ExposedPorts)).toEqual(['4010/tcp']);
    expect(Object.keys(config.Volumes)).toEqual(['/data']);
    const healthcheck = JSON.parse(podman(['image', 'inspect', '--format', '{{json .Config.Healthcheck}}', image])) as { Test: string[] };
    expect(healthcheck.Test).toEqual(['CMD', 'node', '/app/container/healthcheck.mjs']);
  });

  it('prints the banner `npx shipmock` prints with the same settings, plus the generated admin key', async () => {
    // The CLI of this checkout, configured by the image's environment (a port of its own).
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-banner-'));
    const cli = spawn(process.execPath, [join(ROOT, 'bin/shipmock.js')], {
      env: { ...process.env, SHIPMOCK_HOST: '0.0.0.0', SHIPMOCK_PORT: '0', SHIPMOCK_DATA: join(dir, 'shipmock.db'), SHIPMOCK_ADMIN_KEY: 'auto', SHIPMOCK_SEED: '3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let local = '';
    cli.stdout.on('data', (chunk) => (local += chunk));
    cli.stderr.on('data', (chunk) => (local += chunk));
    try {
      await expect.poll(() => local, { timeout: 30_000 }).toMatch(/company token/);
    } finally {
      cli.kill('SIGTERM');
      await new Promise((resolve) => cli.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    }
    // The banner's lines, from the first to the token command (request log lines may follow).
    const shape = (text: string) =>
      /^shipmock listening[^]*?\n {2}company token .*$/m
        .exec(text)![0]
        .split('\n')
        .map((line) => line.replace(/:\d+/g, ':PORT').replace(/\/[^\s]*shipmock\.db/, '/DATA').replace(/^(\s+admin key\s+)\S+/, '$1KEY'));
    expect(shape(banner)).toEqual(shape(local));
    expect(banner).toMatch(/^shipmock listening on http:\/\/0\.0\.0\.0:4010$/m);
    expect(banner).toMatch(/^ {2}control plane {2}\/__admin requires X-Admin-Key/m);
    expect(adminKey).toMatch(/^[\w-]{24}$/);
    expect(banner).toContain('data file      /data/shipmock.db');
  });

  it('reports healthy to `podman healthcheck run` (the image HEALTHCHECK, run by hand: no systemd here)', () => {
    expect(podmanStatus(['healthcheck', 'run', container]).status).toBe(0);
    expect(podman(['inspect', '--format', '{{.State.Health.Status}}', container])).toBe('healthy');
  });

  it('runs as a user that is not root, owning only /data', () => {
    const status = podman(['exec', container, 'cat', '/proc/1/status']);
    expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe('10001');
    expect(podman(['exec', container, 'sh', '-c', 'stat -c %u /data; touch /app/x 2>&1 || echo read-only'])).toMatch(/^10001\n.*read-only$/s);
  });

  it('refuses the control plane from the host without the key and opens it with the key', async () => {
    const admin = (key?: string) => fetch(`${target.url}/__admin/state/overview`, { headers: key ? { 'X-Admin-Key': key } : {} });
    const without = await admin();
    expect(without.status).toBe(401);
    expect(without.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await admin('not-the-key-at-all')).status).toBe(401);
    const allowed = await admin(adminKey);
    expect(allowed.status).toBe(200);
    // The inspector's page loads; it asks for the key before it calls the control plane.
    const page = await fetch(`${target.url}/__admin/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('books a shipment with a PDF label (the native and document libraries the image keeps)', async () => {
    const mock = mockOf(target);
    const account = await liveAccount(mock);
    await liveBooking(mock, account, 'PDF');
    const documents = await call(mock, 'GET', '/v1/documents', { auth: account.auth });
    expect(documents.status).toBe(200);
    const label = documents.body.items.find((doc: { contentType: string }) => doc.contentType === 'PDF');
    const data = await fetch(`${target.url}/v1/documents/${label.id}/data`, { headers: { Authorization: account.auth } });
    expect(data.status).toBe(200);
    expect(Buffer.from(await data.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('keeps its data in the volume: a new container on it finds the account and its address', async () => {
    const mock = mockOf(target);
    const account = await liveAccount(mock);
    const address = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { name: 'Volume Test', street: 'Kept 1', city: 'Hamburg', postalCode: '20095', countryCode: 'DE' } });
    expect(address.status).toBe(201);
    podman(['stop', '--time', '10', container]);
    const again = await startContainer(second, { volume, env: { SHIPMOCK_SEED: '3' } });
    const renewed = mockOf(targetOf(again.url, again.banner));
    const token = await call(renewed, 'POST', `/v1/accounts/${account.accountId}/tokens`, {
      auth: `Basic ${Buffer.from(`${target.clientId}:${target.clientSecret}`).toString('base64')}`,
      body: { grantType: 'client_credentials' },
    });
    expect(token.status).toBe(200);
    const read = await call(renewed, 'GET', `/v1/addresses/${address.body.id}`, { auth: `Bearer ${token.body.accessToken}` });
    expect(read.status).toBe(200);
    expect(read.body.city).toBe('Hamburg');
    // A new container, a new generated key: the old one no longer opens the control plane.
    expect(bannerField(again.banner, 'admin key')).not.toBe(adminKey);
    expect((await fetch(`${again.url}/__admin/state/overview`, { headers: { 'X-Admin-Key': adminKey } })).status).toBe(401);
  });
});

/** The library in the image: an Express app of the user's (`FROM shipmock`) mounting shipmockMiddleware(). */
const EXPRESS_APP = `
const { shipmockMiddleware } = await import('/app/dist/index.js');
const { default: express } = await import('express');
const mock = shipmockMiddleware({ seed: 1, logLevel: 'silent' });
const app = express();
app.get('/health', (_req, res) => void res.json({ app: 'mine' }));
app.use('/shipping', mock);
app.listen(4010, '0.0.0.0', () => console.log('ready ' + JSON.stringify(mock.credentials)));
`;

describe.skipIf(skip)('conformance: shipmockMiddleware() in an Express app in the image', () => {
  const container = uniqueName('express');
  let target: ConformanceTarget;

  beforeAll(async () => {
    podman(['run', '--detach', '--name', container, '--publish', '127.0.0.1::4010', '--entrypoint', 'node', shipmockImage(), '--input-type=module', '--eval', EXPRESS_APP]);
    const log = await untilLogged(container, /^ready \{/m);
    const credentials = JSON.parse(/^ready (\{.*\})$/m.exec(log)![1]) as Omit<ConformanceTarget, 'url'>;
    target = { url: `${publishedUrl(container)}/shipping`, ...credentials };
    await untilHealthy(target.url);
  }, BUILD_TIMEOUT);

  afterAll(() => removeContainers(container));

  defineConformanceSuite(() => target);

  it('leaves the app’s own routes to the app', async () => {
    expect(await (await fetch(`${target.url.replace(/\/shipping$/, '')}/health`)).json()).toEqual({ app: 'mine' });
  });
});

if (skip) {
  describe('the container image (skipped)', () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
}
