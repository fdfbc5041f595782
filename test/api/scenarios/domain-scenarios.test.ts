import { afterEach, describe, expect, it } from 'vitest';
import { book, bookingKit, carriers } from '../../support/booking-fixtures.js';
import { createHarness, newAccount, twoAccounts, type Harness, type TestAccount } from '../../support/harness.js';
import { berlin, createAddress, createVia, munich, renewToken } from '../../support/shipping-fixtures.js';
import { behaviours, deliveriesOf, driveDeliveries, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

/**
 * The ready scenarios that act inside the mock (quotes, webhooks, carriers, trackers, labels),
 * each proved through HTTP to do what its header comment says.
 */
describe('quote-expiry', () => {
  it('makes quotes of the scoped account expire after the given validity; booking one then is 400 quote-expired', async () => {
    const h = createHarness();
    const { a, b } = await twoAccounts(h, ['Warehouse Berlin', 'B']);
    const quoteFor = async (account: TestAccount) => {
      const kit = await bookingKit(h, account);
      const zone = await createVia(h, account, '/v1/zones', { name: 'Germany', countryCodes: ['DE'] });
      await createVia(h, account, '/v1/delivery-options', { name: 'Standard', serviceDefinitionId: kit.serviceDefinitionId, zoneIds: [zone], priceRules: [{ maxWeightKg: 10, price: { amount: 5, currency: 'EUR' } }] });
      const body = { senderAddressId: kit.senderId, receiverAddressId: kit.receiverId, parcels: [{ weight: 1 }] };
      return { kit, batch: (await h.http.post('/v1/shipping-quotes').set('Authorization', account.auth).send(body)).body };
    };
    h.scenarios.activate('quote-expiry', { accountId: a.accountId, params: { validity: 'PT1M' } });

    const { kit, batch: short } = await quoteFor(a);
    expect(short).toMatchObject({ status: 'VALID', createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T00:01:00.000Z' });
    expect(short.quotes[0].expiresAt).toBe('2026-01-01T00:01:00.000Z');
    const normal = (await quoteFor(b)).batch;
    expect(normal.expiresAt).toBe('2026-01-02T00:00:00.000Z');

    h.clock.advance(59_999);
    expect((await h.http.get(`/v1/shipping-quotes/${short.purchaseId}`).set('Authorization', a.auth)).body.status).toBe('VALID');
    h.clock.advance(1);
    expect((await h.http.get(`/v1/shipping-quotes/${short.purchaseId}`).set('Authorization', a.auth)).body.status).toBe('EXPIRED');
    expect((await h.http.get(`/v1/shipping-quotes/${normal.purchaseId}`).set('Authorization', b.auth)).body.status).toBe('VALID');

    const booking = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send(kit.body(await kit.parcels(1), { shippingQuoteId: short.quotes[0].id }));
    expect(booking.status).toBe(400);
    expect(booking.body.type).toBe('https://shipmock.dev/problems/quote-expired');
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
    h.scenarios.activate('webhook-retry-storm', { accountId: account.accountId });
    await createAddress(h, account, berlin);
    await createAddress(h, account, munich);

    await driveDeliveries(h, () => deliveriesOf(h, channelId).filter((d) => d.status === 'DELIVERED').length === 2);
    const byEvent = new Map<string, number[]>();
    for (const hit of receiver.received) byEvent.set(hit.eventId, [...(byEvent.get(hit.eventId) ?? []), hit.attempt]);
    expect([...byEvent.values()]).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 4],
    ]);
    for (const delivery of deliveriesOf(h, channelId)) {
      expect(delivery.attempts.map((x) => x.errorCode ?? x.statusCode)).toEqual(['ACK_LOST', 'ACK_LOST', 'ACK_LOST', 200]);
      expect(delivery.attempts[0].error).toMatch(/answered 200; the acknowledgement is treated as lost \(scenario webhook-retry-storm/);
    }
    const log = await h.http.get(`/__admin/deliveries?channel_id=${channelId}`);
    expect(log.body.items.every((d: { attemptCount: number }) => d.attemptCount === 4)).toBe(true);
  });
});

describe('carrier scenarios (PRODUCTION bookings only)', () => {
  async function setUp() {
    const h = createHarness();
    const account = await newAccount(h);
    const production = await bookingKit(h, account, { mode: 'PRODUCTION' });
    const staging = await bookingKit(h, account, { mode: 'STAGING' });
    const otherCarrier = await bookingKit(h, account, { mode: 'PRODUCTION', carrierId: carriers.ups, serviceId: carriers.upsStandard });
    return { h, account, production, staging, otherCarrier };
  }
  const post = (h: Harness, account: TestAccount, body: Record<string, unknown>) => h.http.post('/v1/shipment-bookings').set('Authorization', account.auth).send(body);

  it('carrier-outage: PRODUCTION bookings with the carrier fail with a 500 and store nothing; STAGING and other carriers book', async () => {
    const { h, account, production, staging, otherCarrier } = await setUp();
    h.scenarios.activate('carrier-outage', { accountId: account.accountId, params: { carrier: 'DHL_PARCEL' } });
    const [parcel] = await production.parcels(1);
    const failed = await post(h, account, production.body([parcel]));
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ type: 'https://shipmock.dev/problems/carrier-unavailable', properties: { carrierCode: 'DHL_PARCEL', kind: 'OUTAGE' } });
    expect(failed.body.detail).toMatch(/scenario carrier-outage/);
    expect(failed.headers['x-ratelimit-limit']).toBeUndefined();
    expect((await h.http.get('/v1/shipment-bookings').set('Authorization', account.auth)).body.items).toEqual([]);
    expect((await h.http.get(`/v1/parcels/${parcel}`).set('Authorization', account.auth)).body.shipmentBookingId).toBeUndefined();

    const [entry] = h.journal.find({ operationId: 'createShipmentBooking', scenario: 'carrier-outage' });
    expect(entry).toMatchObject({ status: 500, problem: 'carrier-unavailable', scenarios: ['carrier-outage/outage'] });

    expect((await post(h, account, staging.body(await staging.parcels(1)))).status).toBe(201);
    expect((await post(h, account, otherCarrier.body(await otherCarrier.parcels(1)))).status).toBe(201);
    expect(h.scenarios.list()[0].hits).toBe(1);
  });

  it('carrier-outage for one account leaves the same carrier working for another', async () => {
    const { h, account } = await setUp();
    const other = await newAccount(h, { alias: 'Other' });
    const kit = await bookingKit(h, other, { mode: 'PRODUCTION' });
    h.scenarios.activate('carrier-outage', { accountId: account.accountId, params: { carrier: 'DHL_PARCEL' } });
    expect((await post(h, other, kit.body(await kit.parcels(1)))).status).toBe(201);
  });

  it('carrier-rejects: the booking is stored FAILED with the reason, nothing booked or billed', async () => {
    const { h, account, production } = await setUp();
    h.scenarios.activate('carrier-rejects', { accountId: account.accountId, params: { carrier: carriers.dhl, reason: 'Postal code not served' } });
    const booking = await book(h, account, production.body(await production.parcels(1)));
    expect(booking).toMatchObject({ status: 'FAILED', failureReason: 'Postal code not served' });
    expect(booking.trackingNumbers).toBeUndefined();
  });

  it('slow-carrier: PRODUCTION bookings wait for the carrier (real time), then succeed', async () => {
    const { h, account, production } = await setUp();
    h.scenarios.activate('slow-carrier', { accountId: account.accountId, params: { carrier: 'DHL_PARCEL', delay: 300 } });
    const started = performance.now();
    const res = await post(h, account, production.body(await production.parcels(1)));
    expect(res.status).toBe(201);
    const [entry] = h.journal.find({ operationId: 'createShipmentBooking', limit: 1 });
    expect(entry.latencyMs).toBeGreaterThanOrEqual(295);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });
});

describe('label-rendering-failure', () => {
  it('refuses bookings with a 500 label-rendering-failed problem and stores nothing', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const kit = await bookingKit(h, account);
    h.scenarios.activate('label-rendering-failure', { accountId: account.accountId });
    const [parcel] = await kit.parcels(1);
    const res = await h.http.post('/v1/shipment-bookings').set('Authorization', account.auth).send(kit.body([parcel]));
    expect(res.status).toBe(500);
    expect(res.body.type).toBe('https://shipmock.dev/problems/label-rendering-failed');
    expect((await h.http.get('/v1/shipment-bookings').set('Authorization', account.auth)).body.items).toEqual([]);
    expect((await h.http.get('/v1/documents').set('Authorization', account.auth)).body.items).toEqual([]);
    h.scenarios.deactivate('label-rendering-failure');
    expect((await h.http.post('/v1/shipment-bookings').set('Authorization', account.auth).send(kit.body([parcel]))).status).toBe(201);
  });
});

describe('tracker-exception', () => {
  async function journey(outcome?: string) {
    const h = createHarness();
    const account = await newAccount(h);
    const kit = await bookingKit(h, account);
    if (outcome) h.scenarios.activate('tracker-exception', { accountId: account.accountId, params: { outcome } });
    const booking = await book(h, account, kit.body(await kit.parcels(1)));
    h.clock.advance(14 * 86_400_000);
    const [tracker] = (await h.http.get(`/v1/trackers?shipment_booking_id=${booking.id}`).set('Authorization', await renewed(h, account))).body.items;
    return tracker as { status: string; events: { status: string }[]; deliveredAt?: string };
  }
  const renewed = async (h: Harness, account: TestAccount) => (await renewToken(h, account)).auth;

  it('ends the journey in a failed delivery attempt instead of DELIVERED', async () => {
    const normal = await journey();
    expect(normal.status).toBe('DELIVERED');
    const failed = await journey('EXCEPTION');
    expect(failed.status).toBe('EXCEPTION');
    expect(failed.events.map((e) => e.status)).not.toContain('DELIVERED');
    expect(failed.deliveredAt).toBeUndefined();
  });

  it.each([
    ['RETURNED', ['EXCEPTION', 'RETURNED']],
    ['LOST', ['LOST']],
  ])('with outcome %s ends in %j', async (outcome, tail) => {
    const tracker = await journey(outcome);
    expect(tracker.status).toBe(outcome);
    expect(tracker.events.slice(-tail.length).map((e) => e.status)).toEqual(tail);
  });
});
