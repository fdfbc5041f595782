import { describe, expect, it } from 'vitest';
import { startMock, type EventEnvelope } from '../../src/index.js';
import { createLogger } from '../../src/logging/logger.js';
import { ADDRESS, call, liveAccount } from '../support/live-mock.js';
import { releaseWhenDone } from '../support/lifetime.js';
import { behaviours, startWebhookReceiver, waitUntil } from '../support/webhook-receiver.js';

/**
 * The handles startMock() returns beyond the control plane (README, In a test suite), used as a
 * library user would: through the package's entry point, against a mock on a real socket.
 * (mock.carriers and mock.usage are used by the booking and PUDO suites, test/api/.)
 */
async function started(options: Parameters<typeof startMock>[0] = {}) {
  const mock = await startMock({ port: 0, seed: 1, clock: { mode: 'manual' }, logger: createLogger({ level: 'silent', format: 'json' }), ...options });
  releaseWhenDone(() => mock.close());
  return mock;
}

describe('mock handles', () => {
  it('clock: epoch milliseconds and the mode beside the ISO now', async () => {
    const mock = await started();
    expect(mock.clock.mode).toBe('manual');
    expect(mock.clock.epochMs()).toBe(Date.parse(mock.clock.now()));
    mock.clock.advance('PT1H');
    expect(mock.clock.epochMs()).toBe(Date.parse('2026-01-01T01:00:00.000Z'));
  });

  it('events: a subscriber hears every event until it unsubscribes', async () => {
    const mock = await started();
    const account = await liveAccount(mock);
    const seen: EventEnvelope[] = [];
    const stop = mock.events.subscribe((event) => seen.push(event));
    await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS });
    stop();
    await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS });
    expect(seen.map((e) => [e.topic, e.type, e.accountId])).toEqual([['ADDRESS', 'CREATED', account.accountId]]);
  });

  it('webhooks: the delivery log, one delivery, and a dead letter delivered again', async () => {
    const mock = await started({ webhooks: { maxAttempts: 1 } });
    const account = await liveAccount(mock);
    const receiver = await startWebhookReceiver(behaviours.failTimes(1));
    const channel = await call(mock, 'POST', '/v1/event-channels', { auth: account.auth, body: { name: 'hooks', topics: ['ADDRESS'], webhook: { url: receiver.url } } });
    expect(channel.status).toBe(201);
    const published = mock.events.publish({ topic: 'ADDRESS', type: 'CREATED', accountId: account.accountId, payload: { ...ADDRESS, id: 'a1', createdAt: mock.clock.now(), updatedAt: mock.clock.now() } });
    await waitUntil(() => mock.webhooks.deliveries({ status: 'FAILED' }).items.length === 1, 5_000, 'the delivery to fail');
    const [failed] = mock.webhooks.deliveries({ channelId: channel.body.id }).items;
    expect(failed).toMatchObject({ status: 'FAILED', event: { id: published.id } });
    expect(mock.webhooks.delivery(failed.id)?.attempts).toHaveLength(1);
    expect(mock.webhooks.redeliver(failed.id).id).toBe(failed.id);
    await receiver.waitFor((r) => r.eventId === published.id, { count: 2 });
    await waitUntil(() => mock.webhooks.delivery(failed.id)?.status === 'DELIVERED', 5_000, 'the redelivery');
    expect(() => mock.webhooks.redeliver('00000000-0000-4000-8000-000000000000')).toThrow();
  });

  it('rateLimits: a window read without counting, and the limit set from the test', async () => {
    const mock = await started();
    const account = await liveAccount(mock);
    mock.rateLimits.configure({ limit: 2, windowMs: 60_000 });
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(200);
    expect(mock.rateLimits.peek(`account:${account.accountId}`)).toMatchObject({ limit: 2, remaining: 1 });
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(200);
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(429);
  });

  it('tokens: one signed as the mock signs them is accepted until it expires on the mock clock', async () => {
    const mock = await started();
    const { companyId, clientId } = mock.credentials;
    const { token, expiresAt } = mock.tokens.sign({ lvl: 'COMPANY', cid: companyId, sub: clientId }, 1_000);
    expect(expiresAt).toBe(mock.clock.epochMs() + 1_000);
    expect((await call(mock, 'GET', '/v1/accounts', { auth: `Bearer ${token}` })).status).toBe(200);
    mock.clock.advance(1_000);
    expect((await call(mock, 'GET', '/v1/accounts', { auth: `Bearer ${token}` })).status).toBe(401);
  });
});
