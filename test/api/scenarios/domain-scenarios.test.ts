import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, newAccount } from '../../support/harness.js';
import { berlin, createAddress, createServiceDefinition, createVia, munich } from '../../support/shipping-fixtures.js';
import { behaviours, deliveriesOf, driveDeliveries, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

/**
 * The ready scenarios that act inside the mock (quotes, webhooks, carriers, trackers, labels),
 * each proved through HTTP to do what its header comment says.
 */
describe('quote-expiry', () => {
  it('makes quotes of the scoped account expire after the given validity, on the virtual clock', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const b = await newAccount(h, { alias: 'B' });
    const quoteFor = async (account: typeof a) => {
      const definition = await createServiceDefinition(h, account);
      const zone = await createVia(h, account, '/v1/zones', { name: 'Germany', countryCodes: ['DE'] });
      await createVia(h, account, '/v1/delivery-options', { name: 'Standard', serviceDefinitionId: definition, zoneIds: [zone], priceRules: [{ maxWeightKg: 10, price: { amount: 5, currency: 'EUR' } }] });
      const body = { senderAddressId: await createAddress(h, account, berlin), receiverAddressId: await createAddress(h, account, munich), parcels: [{ weight: 1 }] };
      return (await h.http.post('/v1/shipping-quotes').set('Authorization', account.auth).send(body)).body;
    };
    h.runtime.scenarios.activate('quote-expiry', { accountId: a.accountId, params: { validity: 'PT1M' } });

    const short = await quoteFor(a);
    expect(short).toMatchObject({ status: 'VALID', createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T00:01:00.000Z' });
    expect(short.quotes[0].expiresAt).toBe('2026-01-01T00:01:00.000Z');
    const normal = await quoteFor(b);
    expect(normal.expiresAt).toBe('2026-01-02T00:00:00.000Z');

    h.runtime.clock.advance(59_999);
    expect((await h.http.get(`/v1/shipping-quotes/${short.purchaseId}`).set('Authorization', a.auth)).body.status).toBe('VALID');
    h.runtime.clock.advance(1);
    expect((await h.http.get(`/v1/shipping-quotes/${short.purchaseId}`).set('Authorization', a.auth)).body.status).toBe('EXPIRED');
    expect((await h.http.get(`/v1/shipping-quotes/${normal.purchaseId}`).set('Authorization', b.auth)).body.status).toBe('VALID');
  });
});

describe('webhook-retry-storm', () => {
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
  });

  it('delivers every event four times (same event id, attempts 1–4); the lost acknowledgements are in the delivery log', async () => {
    const h = createHarness({ webhooks: { timeoutMs: 2000 } });
    const account = await newAccount(h);
    receiver = await startWebhookReceiver(behaviours.succeed());
    const channelId = await createVia(h, account, '/v1/event-channels', { name: 'hooks', topics: ['ADDRESS'], webhook: { url: receiver.url } });
    h.runtime.scenarios.activate('webhook-retry-storm', { accountId: account.accountId });
    await createAddress(h, account, berlin);
    await createAddress(h, account, munich);

    await driveDeliveries(h.runtime, () => deliveriesOf(h.runtime, channelId).filter((d) => d.status === 'DELIVERED').length === 2);
    const byEvent = new Map<string, number[]>();
    for (const hit of receiver.received) byEvent.set(hit.eventId, [...(byEvent.get(hit.eventId) ?? []), hit.attempt]);
    expect([...byEvent.values()]).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 4],
    ]);
    for (const delivery of deliveriesOf(h.runtime, channelId)) {
      expect(delivery.attempts.map((x) => x.errorCode ?? x.statusCode)).toEqual(['ACK_LOST', 'ACK_LOST', 'ACK_LOST', 200]);
      expect(delivery.attempts[0].error).toMatch(/answered 200; the acknowledgement is treated as lost \(scenario webhook-retry-storm/);
    }
    const log = await h.http.get(`/__admin/deliveries?channel_id=${channelId}`);
    expect(log.body.items.every((d: { attemptCount: number }) => d.attemptCount === 4)).toBe(true);
  });
});
