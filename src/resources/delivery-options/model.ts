import type { components } from '../../client/schema.js';
import type { Money } from '../parcels/model.js';

type Schemas = components['schemas'];

/** contract: PriceRule — applies to parcels up to maxWeightKg. */
export type PriceRule = Schemas['PriceRule'];

/** contract: DeliveryOptionRequest (contract/DECISIONS.md "Delivery Option fields and level"). */
export type DeliveryOptionInput = Schemas['DeliveryOptionRequest'];

/** contract: DeliveryOption — active filled in, priceRules ascending by weight. */
export type DeliveryOption = Schemas['DeliveryOption'];
