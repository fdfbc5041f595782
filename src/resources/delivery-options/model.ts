import type { Money } from '../parcels/model.js';

/** contract: PriceRule — applies to parcels up to maxWeightKg. */
export interface PriceRule {
  maxWeightKg: number;
  price: Money;
}

/** contract: DeliveryOptionRequest (contract/DECISIONS.md "Delivery Option fields and level"). */
export interface DeliveryOptionInput {
  name: string;
  serviceDefinitionId: string;
  zoneIds: string[];
  active?: boolean;
  priceRules: PriceRule[];
  deliveryDaysMin?: number;
  deliveryDaysMax?: number;
}

/** contract: DeliveryOption — active filled in, priceRules ascending by weight. */
export interface DeliveryOption extends Omit<DeliveryOptionInput, 'active'> {
  id: string;
  createdAt: string;
  updatedAt: string;
  active: boolean;
}
