import type { components } from './schema.js';

/** The webhook envelope (contract `Event`): topic, type, accountId or companyId, createdAt, payload. */
export type ShippingEvent = components['schemas']['Event'];
/** SHIPMENT_BOOKING events carry the booking code (contract `ShipmentBookingEvent`). */
export type ShipmentBookingEvent = components['schemas']['ShipmentBookingEvent'];
/** Billing usage events on PARCEL and PUDO_POINT (contract `UsageEvent`). */
export type UsageEvent = components['schemas']['UsageEvent'];

/**
 * Reads a webhook body as a ShippingEvent, checking the envelope fields the spec names
 * (Events: "topic, accountId, createdAt, payload") plus id and type; throws on anything else
 * so a receiver never acts on a half-read event.
 *
 * @example
 * app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = parseShippingEvent(req.body);
 *   if (isShipmentBookingEvent(event)) console.log(event.payload.shipmentId, event.payload.code);
 *   res.sendStatus(204);
 * });
 */
export function parseShippingEvent(body: string | Uint8Array | object): ShippingEvent {
  const value: unknown =
    typeof body === 'string' ? JSON.parse(body) : body instanceof Uint8Array ? JSON.parse(Buffer.from(body).toString('utf8')) : body;
  const event = value as Partial<ShippingEvent> | null;
  const missing = ['id', 'topic', 'type', 'createdAt'].filter((key) => typeof (event as Record<string, unknown> | null)?.[key] !== 'string');
  if (!event || typeof event !== 'object' || missing.length || !event.payload || typeof event.payload !== 'object') {
    throw new Error(`not a Shipping Platform event: ${missing.length ? `missing ${missing.join(', ')}` : 'payload must be an object'}`);
  }
  return event as ShippingEvent;
}

/** @example if (isShipmentBookingEvent(event)) event.payload.code // 'CREATED' | … */
export function isShipmentBookingEvent(event: ShippingEvent): event is ShippingEvent & ShipmentBookingEvent {
  return event.topic === 'SHIPMENT_BOOKING';
}

/** @example if (isUsageEvent(event)) event.payload.tokens */
export function isUsageEvent(event: ShippingEvent): event is ShippingEvent & UsageEvent {
  return event.type === 'USAGE' && (event.topic === 'PARCEL' || event.topic === 'PUDO_POINT');
}
