import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { releaseWhenDone } from '../support/lifetime.js';
import { ADDRESS, call, liveAccount, startLiveMock, type LiveAccount } from '../support/live-mock.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { recordEscapedErrors } from '../support/escaped-errors.js';

/**
 * Issue 23: "the mock never sends a request to itself". A webhook aimed at the mock (any
 * spelling of this machine on its port) is refused when the channel is made or replaced and
 * at each attempt; every request the mock sends carries Shipmock-Sender, which the mock
 * refuses, so a loop through another host ends too. Real sockets throughout: the mock's port
 * is what makes a target "the mock".
 */

/** Anything that escapes background work would end a real `shipmock serve`. */
const escaped = recordEscapedErrors();
afterEach(() => expect(escaped).toEqual([]));

let mock: RunningMock;
let account: LiveAccount;

async function setUp(options: Parameters<typeof startLiveMock>[0] = {}) {
  mock = await startLiveMock(options);
  releaseWhenDone(() => mock.close());
  account = await liveAccount(mock);
}

const channel = (url: string) => ({ name: 'hooks', topics: ['ADDRESS'], webhook: { url } });
const createChannel = (url: string) => call(mock, 'POST', '/v1/event-channels', { auth: account.auth, body: channel(url) });
const listChannels = async () => (await call(mock, 'GET', '/v1/event-channels', { auth: account.auth })).body.items as { id: string; webhook: { url: string } }[];
const createAddress = async () => expect((await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS })).status).toBe(201);

/** A non-loopback address of one of this machine's interfaces, when it has one. */
function interfaceAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (!entry.internal && entry.family === 'IPv4') return entry.address;
  }
  return undefined;
}

/**
 * Every spelling of "this machine, the mock's port" a URL can carry, with the problem that
 * refuses it: the numeric IPv4 forms already break the contract's webhook-url format
 * (validation-error); the rest are judged by the self check (rule-violation). Both name
 * body/webhook/url. (The self check also knows the numeric forms: see the imported-state test.)
 */
function selfTargets(port: number): [string, 'rule-violation' | 'validation-error'][] {
  const own = interfaceAddress();
  const judged = [
    `http://127.0.0.1:${port}/__admin/tokens`,
    `http://127.0.0.1:${port}/__admin/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
    `http://127.255.0.9:${port}/__admin/reset`,
    `http://localhost:${port}/__admin/tokens`,
    `http://LocalHost.:${port}/__admin/tokens`,
    `http://hooks.localhost:${port}/x`,
    `http://0.0.0.0:${port}/x`,
    `http://[::1]:${port}/x`,
    `http://[::]:${port}/x`,
    `http://[0:0:0:0:0:0:0:1]:${port}/x`,
    `http://[::ffff:127.0.0.1]:${port}/x`,
    `http://[::ffff:7f00:1]:${port}/x`,
    `https://127.0.0.1:${port}/x`,
    `http://user:pass@127.0.0.1:${port}/x`,
    `http://${hostname()}:${port}/x`,
    ...(own ? [`http://${own}:${port}/x`] : []),
  ].map((url) => [url, 'rule-violation'] as [string, 'rule-violation']);
  const malformed = [`http://2130706433:${port}/x`, `http://0x7f.1:${port}/x`, `http://0177.0.0.1:${port}/x`, `http://127.1:${port}/x`, `http://0x7f000001:${port}/x`].map(
    (url) => [url, 'validation-error'] as [string, 'validation-error'],
  );
  return [...judged, ...malformed];
}

function expectRefused(url: string, slug: string, res: { status: number; body: any; headers: Headers }) {
  expect({ url, status: res.status, type: res.body.type }).toEqual({ url, status: 400, type: `https://shipmock.dev/problems/${slug}` });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.properties.violations).toEqual([
    { field: 'body/webhook/url', message: slug === 'rule-violation' ? expect.stringContaining('is this mock itself') : expect.any(String) },
  ]);
}

describe('a webhook is never the mock itself', () => {
  it('refuses every spelling of this machine on the mock port at create, 400 naming body/webhook/url, storing nothing', async () => {
    await setUp();
    for (const [url, slug] of selfTargets(mock.port)) expectRefused(url, slug, await createChannel(url));
    expect(await listChannels()).toEqual([]);
  });

  it('refuses them at replace too, and the channel keeps its old target', async () => {
    await setUp();
    const receiver = await startWebhookReceiver();
    const created = await createChannel(receiver.url);
    expect(created.status).toBe(201);
    for (const [url, slug] of selfTargets(mock.port)) {
      expectRefused(url, slug, await call(mock, 'PUT', `/v1/event-channels/${created.body.id}`, { auth: account.auth, body: channel(url) }));
    }
    expect((await listChannels()).map((c) => c.webhook.url)).toEqual([receiver.url]);
  });

  it('keeps receivers on other local ports working, with no flag', async () => {
    await setUp();
    const receiver = await startWebhookReceiver();
    for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost'), receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]')]) {
      expect((await createChannel(url)).status).toBe(201);
    }
    await createAddress();
    const hits = await receiver.waitFor(() => true, { count: 3 });
    expect(hits.every((hit) => hit.body.topic === 'ADDRESS')).toBe(true);
  });

  it('refuses at each attempt a target that reached the store unchecked (imported state): a failed attempt with the reason, nothing sent', async () => {
    await setUp({ webhooks: { maxAttempts: 1 } });
    const receiver = await startWebhookReceiver();
    const created = await createChannel(receiver.url);
    expect(created.status).toBe(201);
    // The state is rewritten as text (no check runs on an import) to point the channel at /__admin/reset.
    const exported = await call(mock, 'GET', '/__admin/state');
    expect(exported.status).toBe(200);
    // A spelling the contract's format would refuse at create: only the attempt's check stands in its way.
    const self = `http://0x7f.1:${mock.port}/__admin/reset`;
    const planted = JSON.parse(JSON.stringify(exported.body).split(receiver.url).join(self));
    expect((await call(mock, 'PUT', '/__admin/state', { body: planted })).status).toBe(204);
    expect((await listChannels()).map((c) => c.webhook.url)).toEqual([self]);

    await createAddress();
    const [delivery] = await until(async () => {
      const items = (await call(mock, 'GET', '/__admin/deliveries')).body.items as any[];
      return items.length && items.every((d) => d.status === 'FAILED') ? items : undefined;
    });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, url: self, errorCode: 'TARGET_IS_MOCK', error: expect.stringContaining('is this mock itself') }),
    ]);
    // Nothing was reset: the account and its address are still there.
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).body.items).toHaveLength(1);
    expect(receiver.received).toEqual([]);
  });

  it('judges the ports the mock is reached on at attempt time: mounted in an app, a port it is reached on later is refused then', async () => {
    // The mock as middleware in an app listening on two ports; the channel is made through the
    // first, aimed at the second (not yet known as the mock's: the create check lets it pass).
    const express = (await import('express')).default;
    const { shipmockMiddleware } = await import('../../src/server/express-middleware.js');
    const { createLogger } = await import('../../src/logging/logger.js');
    const middleware = shipmockMiddleware({ seed: 1, clock: { mode: 'manual' }, webhooks: { maxAttempts: 1 }, logger: createLogger({ level: 'silent', format: 'json' }) });
    releaseWhenDone(() => middleware.close());
    const app = express();
    app.use(middleware);
    const listen = async () => {
      const server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      releaseWhenDone(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
      return (server.address() as AddressInfo).port;
    };
    const [first, second] = [await listen(), await listen()];
    mock = { url: `http://127.0.0.1:${first}`, port: first, credentials: middleware.credentials } as RunningMock;
    account = await liveAccount(mock);
    const target = `http://127.0.0.1:${second}/__admin/reset`;
    expect((await createChannel(target)).status).toBe(201);
    // The app is now reached on the second port too.
    expect((await fetch(`http://127.0.0.1:${second}/__admin/health`)).status).toBe(200);
    await createAddress();
    const [delivery] = await until(async () => {
      const items = (await call(mock, 'GET', '/__admin/deliveries')).body.items as any[];
      return items.length && items.every((d) => d.status === 'FAILED') ? items : undefined;
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ url: target, errorCode: 'TARGET_IS_MOCK' })]);
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).body.items).toHaveLength(1);
  });
});

describe('requests a mock sent are refused (Shipmock-Sender)', () => {
  it('on the control plane (403 control-plane-refused) and the API (403 forbidden), changing nothing', async () => {
    await setUp();
    await createAddress();
    const marked = { 'Shipmock-Sender': 'webhook' };
    const health = await call(mock, 'GET', '/__admin/health', { headers: marked });
    expect(health.status).toBe(403);
    expect(health.body).toMatchObject({ type: 'https://shipmock.dev/problems/control-plane-refused', detail: expect.stringContaining('Shipmock-Sender') });
    const reset = await call(mock, 'POST', '/__admin/reset', { headers: marked, body: {} });
    expect(reset.status).toBe(403);
    const tokens = await call(mock, 'POST', '/__admin/tokens', { headers: { 'Shipmock-Sender': 'anything' }, body: { level: 'ADMIN' } });
    expect(tokens.status).toBe(403);
    const api = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, headers: marked, body: ADDRESS });
    expect(api.status).toBe(403);
    expect(api.body).toMatchObject({ type: 'https://shipmock.dev/problems/forbidden', status: 403 });
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).body.items).toHaveLength(1);
  });

  it('ends a loop through another host: a receiver that forwards each delivery to the mock control plane is refused', async () => {
    await setUp({ webhooks: { maxAttempts: 1 } });
    // A "tunnel": forwards whatever it receives, headers and body, to the mock's /__admin/reset.
    const answers: number[] = [];
    const tunnel = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { host: _host, ...headers } = req.headers;
        const forward = httpRequest(`${mock.url}/__admin/reset`, { method: 'POST', headers }, (answer: IncomingMessage) => {
          answer.resume();
          answers.push(answer.statusCode ?? 0);
          res.writeHead(answer.statusCode ?? 502).end();
        });
        forward.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => tunnel.listen(0, '127.0.0.1', resolve));
    releaseWhenDone(() => new Promise<void>((resolve) => { tunnel.close(() => resolve()); tunnel.closeAllConnections(); }));
    const tunnelUrl = `http://127.0.0.1:${(tunnel.address() as AddressInfo).port}/hook`;
    expect((await createChannel(tunnelUrl)).status).toBe(201);
    await createAddress();
    const [delivery] = await until(async () => {
      const items = (await call(mock, 'GET', '/__admin/deliveries')).body.items as any[];
      return items.length && items.every((d) => d.status === 'FAILED') ? items : undefined;
    });
    expect(answers).toEqual([403]);
    expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: 403 })]);
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).body.items).toHaveLength(1);
  });
});

/** Polls an async probe until it returns something truthy (bounded by real time). */
async function until<T>(probe: () => Promise<T | undefined | 0 | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
