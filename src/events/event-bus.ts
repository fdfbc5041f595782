import type { components } from '../client/schema.js';
import type { Clock } from '../clock/clock.js';
import type { Random } from '../random/random.js';

/**
 * The internal event bus. Every state change publishes one event here (through the service
 * that made the change); event channels and webhook delivery subscribe to it.
 * The envelope follows the spec (topic, accountId, createdAt, payload) plus an id and a type.
 */
type Schemas = components['schemas'];

/**
 * What the events of each topic carry (spec, Events; contract/DECISIONS.md "Billing events"):
 * a resource topic's CREATED/UPDATED/DELETED events the resource as the contract describes it,
 * a booking event the booking event payload, PARCEL and PUDO_POINT events of type USAGE the
 * usage payload. AFFILIATE is the mock's own topic for affiliate configuration changes.
 */
export interface TopicPayloads {
  ACCOUNT: Schemas['AccountResponse'];
  ADDRESS: Schemas['Address'];
  AFFILIATE: Schemas['AffiliateConfig'];
  CARRIER_DEFINITION: Schemas['CarrierDefinition'];
  CUSTOMS_DECLARATION: Schemas['CustomsDeclaration'];
  DANGEROUS_GOODS_DECLARATION: Schemas['DangerousGoodsDeclaration'];
  DELIVERY_OPTION: Schemas['DeliveryOption'];
  DOCUMENT: Schemas['Document'];
  EVENT_CHANNEL: Schemas['EventChannel'];
  PARCEL: Schemas['Parcel'] | Schemas['UsageEventPayload'];
  PARCEL_ITEM: Schemas['ParcelItem'];
  PUDO_POINT: Schemas['UsageEventPayload'];
  SERVICE_DEFINITION: Schemas['ServiceDefinition'];
  SHIPMENT_BOOKING: Schemas['ShipmentBookingEventPayload'];
  SHIPMENT_CHANNEL: Schemas['ShipmentChannel'];
  SHIPMENT_DISPATCH: Schemas['ShipmentDispatch'];
  SHIPMENT_MANIFEST: Schemas['ShipmentManifest'];
  SHIPPING_QUOTE: Schemas['ShippingQuoteBatch'];
  TRACKER: Schemas['Tracker'];
  ZONE: Schemas['Zone'];
}

export type EventTopic = Schemas['EventTopic'] | keyof TopicPayloads;

/** A topic's payload; a topic no service publishes on (a test event sent through the mock-events endpoint) carries any object. */
export type PayloadOf<T extends EventTopic> = T extends keyof TopicPayloads ? TopicPayloads[T] : Record<string, unknown>;

/** What a service publishes: the topic decides the payload's type. */
export type EventInput<T extends EventTopic = EventTopic> = {
  [K in T]: { topic: K; type: string; accountId?: string; companyId?: string; payload: PayloadOf<K> };
}[T];

export interface MockEventInput {
  topic: EventTopic;
  type: string;
  accountId?: string;
  companyId?: string;
  payload: Record<string, unknown>;
}

/**
 * The envelope subscribers and webhook receivers get: the input plus an id and a creation time.
 * Delivery serialises the payload as it is, so subscribers read it as plain JSON.
 */
export interface EventEnvelope {
  id: string;
  /** An EventTopic; stored deliveries (and imported state) keep it as the text it was. */
  topic: string;
  type: string;
  accountId?: string;
  companyId?: string;
  createdAt: string;
  payload: object;
}
export type EventListener = (event: EventEnvelope) => void;

export interface EventBus {
  publish<T extends EventTopic>(input: EventInput<T>): EventEnvelope;
  /** A mock event (spec, Create Mock Event): any object on any topic, delivered like a real one. */
  publishMock(input: MockEventInput): EventEnvelope;
  /** Returns an unsubscribe function. Listeners run synchronously and must not throw. */
  subscribe(listener: EventListener): () => void;
}

/** @example events.publish({ topic: 'ADDRESS', type: 'CREATED', accountId, payload: address }) */
export function createEventBus(deps: { clock: Clock; random: Random; onListenerError?: (error: unknown) => void }): EventBus {
  const listeners = new Set<EventListener>();
  function publish(input: EventInput | MockEventInput): EventEnvelope {
    const event: EventEnvelope = { id: deps.random.uuid(), createdAt: deps.clock.nowIso(), ...input };
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        // A broken subscriber must not undo the state change that already happened.
        deps.onListenerError?.(error);
      }
    }
    return event;
  }
  return {
    publish,
    publishMock: publish,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
