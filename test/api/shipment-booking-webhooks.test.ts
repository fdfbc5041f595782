import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, newAccount } from '../support/harness.js';
import { book, bookingKit } from '../support/booking-fixtures.js';
import { createVia, schemaErrors } from '../support/shipping-fixtures.js';
import { startWebhookReceiver, verifyShipmockSignature, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * SHIPMENT_BOOKING end to end: a booking made through the API reaches a real local receiver as
 * a signed webhook carrying the spec's booking payload, followed in order by the booking's
 * later changes (DISPATCHED, MANIFESTED) and its trackers' steps.
 */
describe('SHIPMENT_BOOKING webhooks', () => {
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
  });

  it('delivers a booking, its dispatch and manifest to a real receiver, signed, in order', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    receiver = await startWebhookReceiver();
    const secret = 'whsec_shipping_day';
    await createVia(h, account, '/v1/event-channels', { name: 'bookings', topics: ['SHIPMENT_BOOKING', 'TRACKER'], webhook: { url: receiver.url, secret } });
    const kit = await bookingKit(h, account);
    const booking = await book(h, account, kit.body(await kit.parcels(1)));

    const [created] = await receiver.waitFor((r) => r.body?.topic === 'SHIPMENT_BOOKING');
    expect(verifyShipmockSignature(secret, created.headers['shipmock-signature'], created.rawBody)).toBe(true);
    expect(verifyShipmockSignature('another secret', created.headers['shipmock-signature'], created.rawBody)).toBe(false);
    expect(created.body).toMatchObject({
      topic: 'SHIPMENT_BOOKING',
      type: 'CREATED',
      accountId: account.accountId,
      payload: { shipmentId: booking.id, code: 'CREATED', createdAt: booking.createdAt, updatedAt: booking.updatedAt },
    });
    expect(schemaErrors(h, 'ShipmentBookingEvent', created.body)).toEqual([]);

    const dispatchId = await createVia(h, account, '/v1/shipment-dispatches', { carrierDefinitionId: kit.carrierDefinitionId, shipmentBookingIds: [booking.id], pickupDate: '2026-01-02' });
    expect((await h.http.post(`/v1/shipment-dispatches/${dispatchId}/shipment-manifests`).set('Authorization', account.auth)).status).toBe(201);
    const bookingHooks = await receiver.waitFor((r) => r.body?.topic === 'SHIPMENT_BOOKING', { count: 3 });
    expect(bookingHooks.map((r) => r.body.payload.code)).toEqual(['CREATED', 'DISPATCHED', 'MANIFESTED']);
    for (const hook of bookingHooks) expect(schemaErrors(h, 'ShipmentBookingEvent', hook.body)).toEqual([]);

    h.clock.advance(30 * 24 * 3_600_000);
    const trackerHooks = await receiver.waitFor((r) => r.body?.topic === 'TRACKER' && r.body.type === 'UPDATED', { count: 4 });
    expect(trackerHooks.map((r) => r.body.payload.status)).toEqual(['PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED']);
  });
});
