import type { DomainDeps, ResourceDeps } from '../shared/domain-deps.js';
import { ProblemError, notFound, ruleViolation } from '../../errors/problem.js';
import type { AddressService } from '../addresses/service.js';
import type { DeliveryOptionService } from '../delivery-options/service.js';
import { scenarioQuoteValidity } from '../../scenarios/domain-hooks.js';
import { compact } from '../../util/compact.js';
import type { ServiceDefinitionLookup } from '../shared/service-definition-lookup.js';
import type { Destination } from '../zones/model.js';
import type { ZoneService } from '../zones/service.js';
import type {
  InlineShippingQuoteInput,
  QuoteIndexEntry,
  QuoteParcel,
  ShippingQuote,
  ShippingQuoteBatch,
  ShippingQuoteInput,
  StoredQuoteBatch,
} from './model.js';

/** Spec, Limits: "Shipping Quote validity | 24 hours". */
export const QUOTE_VALIDITY_MS = 24 * 60 * 60 * 1000;

const LB_IN_KG = 0.45359237;
const toKg = (parcel: QuoteParcel) => (parcel.weightUnit === 'LB' ? parcel.weight * LB_IN_KG : parcel.weight);
const roundCents = (amount: number) => Math.round(amount * 100) / 100;

/**
 * Shipping Quotes: every active Delivery Option of the account is evaluated for the payload
 * (contract: generateShippingQuotes). An option quotes when the receiver lies in one of its
 * zones and every parcel fits a price rule; the price is the sum over parcels of the smallest
 * covering rule. The batch is valid for 24 h on the virtual clock; bookings check a quote with
 * `assertUsable`, which throws the 400 quote-expired problem once it has run out.
 *
 * @example
 * const batch = quotes.generate(accountId, { senderAddressId, receiverAddressId, parcels: [{ weight: 2 }] });
 * quotes.assertUsable(accountId, batch.quotes![0].id, 'body/shippingQuoteId'); // ok for 24 h
 */
export function createShippingQuoteService(
  core: ResourceDeps & Pick<DomainDeps, 'scenarios'>,
  deps: { addresses: AddressService; zones: ZoneService; deliveryOptions: DeliveryOptionService; serviceDefinitions: ServiceDefinitionLookup },
) {
  const { store, clock, random, events } = core;
  const batches = (accountId: string) => store.account(accountId).collection<StoredQuoteBatch>('shipping-quote-batches');
  const index = (accountId: string) => store.account(accountId).collection<QuoteIndexEntry>('shipping-quotes');

  const isExpired = (batch: { expiresAt: string }) => clock.now() >= Date.parse(batch.expiresAt);
  const view = (batch: StoredQuoteBatch): ShippingQuoteBatch =>
    compact({ purchaseId: batch.id, status: isExpired(batch) ? 'EXPIRED' : 'VALID', createdAt: batch.createdAt, expiresAt: batch.expiresAt, quotes: batch.quotes });

  function evaluate(accountId: string, receiver: Destination, parcels: QuoteParcel[], expiresAt: string): ShippingQuote[] {
    const weights = parcels.map(toKg);
    const quotes: ShippingQuote[] = [];
    for (const option of deps.deliveryOptions.active(accountId)) {
      const definition = deps.serviceDefinitions.find(accountId, option.serviceDefinitionId);
      if (!definition || !definition.active) continue;
      const inZone = option.zoneIds.some((zoneId) => {
        const zone = deps.zones.find(accountId, zoneId);
        return zone !== undefined && deps.zones.contains(zone, receiver);
      });
      if (!inZone) continue;
      // priceRules are stored ascending, so the first covering rule is the cheapest fitting band.
      const rules = weights.map((kg) => option.priceRules.find((rule) => kg <= rule.maxWeightKg));
      if (rules.some((rule) => rule === undefined)) continue;
      const amount = roundCents(rules.reduce((sum, rule) => sum + rule!.price.amount, 0));
      quotes.push(
        compact({
          id: random.uuid(),
          deliveryOptionId: option.id,
          serviceDefinitionId: definition.id,
          carrierId: definition.carrierId,
          serviceId: definition.serviceId,
          name: option.name,
          price: { amount, currency: option.priceRules[0].price.currency },
          deliveryDaysMin: option.deliveryDaysMin,
          deliveryDaysMax: option.deliveryDaysMax,
          expiresAt,
        }),
      );
    }
    // Cheapest first; Array.prototype.sort is stable, so ties keep option creation order.
    // At most the 100 cheapest (contract: ShippingQuoteBatch.quotes maxItems).
    return quotes.sort((a, b) => a.price.amount - b.price.amount).slice(0, 100);
  }

  function createBatch(accountId: string, receiver: Destination, parcels: QuoteParcel[]): ShippingQuoteBatch {
    const createdAt = clock.nowIso();
    // Scenario hook (issue 7): the quote-expiry scenario shortens the 24 h validity.
    const validity = scenarioQuoteValidity(core.scenarios, { accountId }) ?? QUOTE_VALIDITY_MS;
    const expiresAt = new Date(clock.now() + validity).toISOString();
    const purchaseId = random.uuid();
    const quotes = evaluate(accountId, receiver, parcels, expiresAt);
    const batch: StoredQuoteBatch = compact({ id: purchaseId, createdAt, expiresAt, quotes });
    batches(accountId).insert(batch);
    for (const quote of quotes) index(accountId).insert({ id: quote.id, purchaseId });
    const result = view(batch);
    events.publish({ topic: 'SHIPPING_QUOTE', type: 'CREATED', accountId, payload: result });
    return result;
  }

  return {
    /** Quotes between two Addresses of the account (unknown ids → 400 naming the field). */
    generate(accountId: string, input: ShippingQuoteInput): ShippingQuoteBatch {
      const sender = deps.addresses.find(accountId, input.senderAddressId);
      if (!sender) throw ruleViolation('body/senderAddressId', `Address ${input.senderAddressId} does not exist in this account`);
      const receiver = deps.addresses.find(accountId, input.receiverAddressId);
      if (!receiver) throw ruleViolation('body/receiverAddressId', `Address ${input.receiverAddressId} does not exist in this account`);
      return createBatch(accountId, receiver, input.parcels);
    },

    /** Quotes for embedded addresses; nothing but the batch is stored. */
    generateInline(accountId: string, input: InlineShippingQuoteInput): ShippingQuoteBatch {
      return createBatch(accountId, input.receiver, input.parcels);
    },

    /** A batch by purchaseId, with status VALID or EXPIRED (expired batches stay readable). */
    get(accountId: string, purchaseId: string): ShippingQuoteBatch {
      const batch = batches(accountId).get(purchaseId);
      if (!batch) throw notFound('Shipping Quote batch', purchaseId);
      return view(batch);
    },

    /**
     * The quote a booking names, if it can still be used: unknown or foreign → 400 rule-violation,
     * expired → 400 quote-expired, both naming `field`.
     */
    assertUsable(accountId: string, quoteId: string, field = 'body/shippingQuoteId'): { quote: ShippingQuote; purchaseId: string } {
      const entry = index(accountId).get(quoteId);
      const batch = entry && batches(accountId).get(entry.purchaseId);
      const quote = batch?.quotes?.find((q) => q.id === quoteId);
      if (!entry || !batch || !quote) throw ruleViolation(field, `Shipping Quote ${quoteId} does not exist in this account`);
      if (isExpired(batch)) {
        const message = `Shipping Quote ${quoteId} expired at ${batch.expiresAt}; generate new quotes`;
        throw new ProblemError('quote-expired', { detail: message, violations: [{ field, message }] });
      }
      return { quote, purchaseId: batch.id };
    },
  };
}

export type ShippingQuoteService = ReturnType<typeof createShippingQuoteService>;
