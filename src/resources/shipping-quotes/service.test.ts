import { describe, expect, it } from 'vitest';
import { createClock } from '../../clock/clock.js';
import { ProblemError } from '../../errors/problem.js';
import { createEventBus, type EventEnvelope } from '../../events/event-bus.js';
import { createRandom } from '../../random/random.js';
import type { ScenarioEngine } from '../../scenarios/engine.js';
import { createStore } from '../../store/store.js';
import type { AddressService } from '../addresses/service.js';
import type { DeliveryOption } from '../delivery-options/model.js';
import type { DeliveryOptionService } from '../delivery-options/service.js';
import type { ServiceDefinitionRef } from '../shared/service-definition-lookup.js';
import type { ZoneService } from '../zones/service.js';
import { createShippingQuoteService, QUOTE_VALIDITY_MS } from './service.js';

/**
 * The quote rules alone: which delivery options quote (active service definition, receiver in a
 * zone, every parcel within a price band), what they cost (the cheapest fitting band per parcel,
 * summed, cheapest first) and how long a quote can be booked. Zones, options and definitions are
 * small fakes; store, clock, ids and events are the real ones.
 */
const euro = (amount: number, maxWeightKg: number) => ({ maxWeightKg, price: { amount, currency: 'EUR' } });
const option = (id: string, serviceDefinitionId: string, zoneIds: string[], priceRules: ReturnType<typeof euro>[]) =>
  ({ id, name: `Option ${id}`, serviceDefinitionId, zoneIds, priceRules, deliveryDaysMin: 1, deliveryDaysMax: 3 }) as unknown as DeliveryOption;
const definition = (id: string, active = true): ServiceDefinitionRef => ({ id, carrierDefinitionId: 'cd', carrierId: 'carrier', serviceId: `service-${id}`, name: id, active });

function quoting(options: DeliveryOption[], scenarioValidity?: string) {
  const clock = createClock({ mode: 'manual' });
  const events = createEventBus({ clock, random: createRandom(1) });
  const published: EventEnvelope[] = [];
  events.subscribe((event) => published.push(event));
  const definitions = new Map([definition('sd-1'), definition('sd-2'), definition('sd-off', false)].map((d) => [d.id, d]));
  const scenarios = { evaluate: () => (scenarioValidity ? { effect: { quote: { validity: scenarioValidity } } } : undefined) } as unknown as ScenarioEngine;
  const service = createShippingQuoteService(
    { store: createStore(), clock, random: createRandom(1), events, scenarios },
    {
      addresses: { find: () => undefined } as unknown as AddressService,
      zones: { find: (_accountId: string, id: string) => ({ id }), contains: (zone: { id: string }, to: { countryCode: string }) => zone.id === `zone-${to.countryCode}` } as unknown as ZoneService,
      deliveryOptions: { active: () => options } as unknown as DeliveryOptionService,
      serviceDefinitions: { find: (_accountId: string, id: string) => definitions.get(id) },
    },
  );
  return { service, clock, published };
}

const toBerlin = (parcels: { weight: number; weightUnit?: 'KG' | 'LB' }[]) => ({ receiver: { name: 'Erika', street: 'Hauptstr. 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' }, parcels }) as never;

describe('shipping quote rules', () => {
  it('quotes each option whose definition is active, whose zone holds the receiver and whose bands fit every parcel, cheapest first', () => {
    const { service } = quoting([
      option('express', 'sd-1', ['zone-DE'], [euro(9.5, 5), euro(14, 31.5)]),
      option('standard', 'sd-2', ['zone-AT', 'zone-DE'], [euro(4.99, 2), euro(6.49, 10)]),
      option('inactive', 'sd-off', ['zone-DE'], [euro(1, 31.5)]),
      option('abroad', 'sd-1', ['zone-AT'], [euro(1, 31.5)]),
      option('light-only', 'sd-2', ['zone-DE'], [euro(2, 1)]),
    ]);
    const batch = service.generateInline('a1', toBerlin([{ weight: 1.5 }, { weight: 6 }]));
    expect(batch.quotes!.map((q) => [q.deliveryOptionId, q.price.amount, q.serviceDefinitionId])).toEqual([
      ['standard', 11.48, 'sd-2'],
      ['express', 23.5, 'sd-1'],
    ]);
    expect(batch.status).toBe('VALID');
  });

  it('weighs parcels given in pounds in kilograms for the bands', () => {
    const { service } = quoting([option('standard', 'sd-2', ['zone-DE'], [euro(4.99, 2), euro(6.49, 10)])]);
    expect(service.generateInline('a1', toBerlin([{ weight: 4, weightUnit: 'LB' }])).quotes![0].price.amount).toBe(4.99);
    expect(service.generateInline('a1', toBerlin([{ weight: 5, weightUnit: 'LB' }])).quotes![0].price.amount).toBe(6.49);
  });

  it('keeps a quote bookable for 24 hours, then answers quote-expired naming the field; the batch stays readable as EXPIRED', () => {
    const { service, clock, published } = quoting([option('standard', 'sd-2', ['zone-DE'], [euro(4.99, 2)])]);
    const batch = service.generateInline('a1', toBerlin([{ weight: 1 }]));
    const quoteId = batch.quotes![0].id;
    expect(published.map((e) => [e.topic, e.type])).toEqual([['SHIPPING_QUOTE', 'CREATED']]);
    clock.advance(QUOTE_VALIDITY_MS - 1);
    expect(service.assertUsable('a1', quoteId)).toMatchObject({ purchaseId: batch.purchaseId, quote: { id: quoteId } });
    clock.advance(1);
    const expired = (() => {
      try {
        service.assertUsable('a1', quoteId, 'body/quote');
      } catch (error) {
        return error as ProblemError;
      }
    })();
    expect(expired).toMatchObject({ slug: 'quote-expired', init: { violations: [{ field: 'body/quote' }] } });
    expect(service.get('a1', batch.purchaseId).status).toBe('EXPIRED');
  });

  it('refuses a quote of another account as unknown, and follows a scenario\'s shorter validity', () => {
    const { service, clock } = quoting([option('standard', 'sd-2', ['zone-DE'], [euro(4.99, 2)])], 'PT1M');
    const quoteId = service.generateInline('a1', toBerlin([{ weight: 1 }])).quotes![0].id;
    expect(() => service.assertUsable('a2', quoteId)).toThrow(expect.objectContaining({ slug: 'rule-violation' }));
    clock.advance(60_000);
    expect(() => service.assertUsable('a1', quoteId)).toThrow(expect.objectContaining({ slug: 'quote-expired' }));
  });
});
