import { describe, expect, it } from 'vitest';
import { isShipmentBookingEvent, isUsageEvent, parseShippingEvent, type ShippingEvent } from '../../../src/client/events.js';
import { EX, M, WEBHOOK_CONSUMER, createPact, isoDateTime, trackingNumber, uuid } from './support/pact.js';

/**
 * Message pacts for webhook deliveries: the receiver's expectations of the event envelopes the
 * provider POSTs to an Event Channel's webhook. The provider side produces each message by
 * really triggering it and capturing the delivery (src/verify/messages.ts).
 */
const pact = createPact(WEBHOOK_CONSUMER);
const metadata = { contentType: 'application/json' };

/** The receiver under test: what an integrator's webhook handler does with an event. */
function summarise(event: ShippingEvent): string {
  if (isShipmentBookingEvent(event)) return `booking ${event.payload.shipmentId} ${event.payload.code}`;
  if (isUsageEvent(event)) return `usage ${event.payload.operation}/${event.payload.topic} ${event.payload.tokens}`;
  return `${event.topic} ${event.type}`;
}

const envelope = (topic: string, type: string, payload: unknown) => ({
  id: uuid(EX.missingId),
  topic,
  type,
  accountId: uuid(EX.accountId),
  createdAt: isoDateTime(),
  payload,
});

describe('webhook envelopes', () => {
  it('receives SHIPMENT_BOOKING CREATED', async () => {
    await pact
      .addAsynchronousInteraction()
      .given('a shipment booking was created', { routeFrom: 'DE', routeTo: 'DE' })
      .expectsToReceive('a SHIPMENT_BOOKING CREATED event', (m) =>
        m.withMetadata(metadata).withJSONContent(
          envelope('SHIPMENT_BOOKING', 'CREATED', {
            shipmentId: uuid(EX.shipmentBookingId),
            code: 'CREATED',
            createdAt: isoDateTime(),
            updatedAt: isoDateTime(),
          }),
        ),
      )
      .executeTest(async (message) => {
        expect(summarise(parseShippingEvent(message.contents.content as object))).toBe(`booking ${EX.shipmentBookingId} CREATED`);
      });
  });

  it('receives TRACKER UPDATED with the tracker', async () => {
    await pact
      .addAsynchronousInteraction()
      .given('a tracker was updated', { routeFrom: 'DE', routeTo: 'DE' })
      .expectsToReceive('a TRACKER UPDATED event', (m) =>
        m.withMetadata(metadata).withJSONContent(
          envelope('TRACKER', 'UPDATED', {
            id: uuid(EX.missingId),
            createdAt: isoDateTime(),
            updatedAt: isoDateTime(),
            trackingNumber: trackingNumber(),
            carrierId: uuid(EX.carrierId),
            shipmentBookingId: uuid(EX.shipmentBookingId),
            status: M.regex(/^(CREATED|PICKED_UP|IN_TRANSIT|OUT_FOR_DELIVERY|DELIVERED|EXCEPTION|RETURNED|LOST)$/, 'IN_TRANSIT'),
            events: M.eachLike({
              status: M.regex(/^[A-Z_]+$/, 'IN_TRANSIT'),
              occurredAt: isoDateTime(),
              description: M.string('Parcel is on its way'),
            }),
          }),
        ),
      )
      .executeTest(async (message) => {
        const event = parseShippingEvent(message.contents.content as object);
        expect(summarise(event)).toBe('TRACKER UPDATED');
        expect(event.payload.trackingNumber).toBe(EX.trackingNumber);
      });
  });

  it('receives a billing usage event for a booked parcel', async () => {
    await pact
      .addAsynchronousInteraction()
      .given('a parcel was booked', { routeFrom: 'DE', routeTo: 'DE' })
      .expectsToReceive('a PARCEL USAGE billing event', (m) =>
        m.withMetadata(metadata).withJSONContent(
          envelope('PARCEL', 'USAGE', { operation: 'CONSUME', topic: 'PARCEL', tokens: M.integer(1), reference: uuid(EX.shipmentBookingId) }),
        ),
      )
      .executeTest(async (message) => {
        expect(summarise(parseShippingEvent(message.contents.content as object))).toBe('usage CONSUME/PARCEL 1');
      });
  });

  it('receives a mock event exactly as it was created', async () => {
    const payload = { status: 'DOWN', message: 'Carrier API unavailable' };
    await pact
      .addAsynchronousInteraction()
      .given('a mock event was created', { topic: 'CARRIER_STATUS', type: 'OUTAGE', payload })
      .expectsToReceive('a CARRIER_STATUS OUTAGE mock event', (m) => m.withMetadata(metadata).withJSONContent(envelope('CARRIER_STATUS', 'OUTAGE', payload)))
      .executeTest(async (message) => {
        expect(summarise(parseShippingEvent(message.contents.content as object))).toBe('CARRIER_STATUS OUTAGE');
      });
  });

  it('refuses a body that is not an event envelope', () => {
    expect(() => parseShippingEvent('{"topic":"TRACKER"}')).toThrow(/missing id, type, createdAt/);
    expect(() => parseShippingEvent({ id: 'x', topic: 'T', type: 'U', createdAt: 'now', payload: 'nope' })).toThrow(/payload/);
  });
});
