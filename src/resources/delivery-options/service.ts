import type { ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { ServiceDefinitionLookup } from '../shared/service-definition-lookup.js';
import type { ZoneService } from '../zones/service.js';
import type { DeliveryOption, DeliveryOptionInput } from './model.js';

/**
 * Delivery Options: a Service Definition of the account offered in Zones of the account at
 * weight-banded prices. Creating one requires its zones (spec, "Create Delivery Option requires
 * that Zones are created and associated with it"); a zone in use cannot be deleted.
 *
 * @example
 * deliveryOptions.create(accountId, { name: 'Standard', serviceDefinitionId, zoneIds: [zone.id],
 *   priceRules: [{ maxWeightKg: 5, price: { amount: 4.9, currency: 'EUR' } }] });
 */
export function createDeliveryOptionService(core: ResourceDeps, deps: { zones: ZoneService; serviceDefinitions: ServiceDefinitionLookup }) {
  const base = createAccountResources<DeliveryOptionInput, DeliveryOption>(core, {
    collection: 'delivery-options',
    topic: 'DELIVERY_OPTION',
    label: 'Delivery Option',
    build: (input, meta) => ({
      ...meta,
      ...input,
      // contract: "An omitted `active` becomes true" (full replacement included).
      active: input.active ?? true,
      priceRules: [...input.priceRules].sort((a, b) => a.maxWeightKg - b.maxWeightKg),
    }),
    check(accountId, input) {
      if (!deps.serviceDefinitions.find(accountId, input.serviceDefinitionId)) {
        throw ruleViolation('body/serviceDefinitionId', `Service Definition ${input.serviceDefinitionId} does not exist in this account`);
      }
      input.zoneIds.forEach((zoneId, i) => {
        if (!deps.zones.find(accountId, zoneId)) throw ruleViolation(`body/zoneIds/${i}`, `Zone ${zoneId} does not exist in this account`);
      });
      if (input.deliveryDaysMin !== undefined && input.deliveryDaysMax !== undefined && input.deliveryDaysMin > input.deliveryDaysMax) {
        throw ruleViolation('body/deliveryDaysMin', `deliveryDaysMin (${input.deliveryDaysMin}) exceeds deliveryDaysMax (${input.deliveryDaysMax})`);
      }
      const weights = new Set<number>();
      const currency = input.priceRules[0].price.currency;
      input.priceRules.forEach((rule, i) => {
        if (weights.has(rule.maxWeightKg)) throw ruleViolation(`body/priceRules/${i}/maxWeightKg`, `maxWeightKg ${rule.maxWeightKg} appears twice`);
        weights.add(rule.maxWeightKg);
        // Quotes add prices over parcels, which only works in one currency.
        if (rule.price.currency !== currency) {
          throw ruleViolation(`body/priceRules/${i}/price/currency`, `all price rules of a Delivery Option use one currency (${currency})`);
        }
      });
    },
  });

  // contract/DECISIONS.md "Zone deletion in use".
  deps.zones.addRemovalGuard((accountId, zone) => {
    const user = base.all(accountId).find((option) => option.zoneIds.includes(zone.id));
    if (user) throw ruleViolation('path/zone-id', `Zone ${zone.id} is used by Delivery Option ${user.id}`);
  });

  return {
    ...base,
    /** The active options of an account, in creation order (what quotes evaluate). */
    active: (accountId: string): DeliveryOption[] => base.all(accountId).filter((option) => option.active),
  };
}

export type DeliveryOptionService = ReturnType<typeof createDeliveryOptionService>;
