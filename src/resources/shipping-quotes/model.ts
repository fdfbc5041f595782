import type { AddressInput } from '../addresses/model.js';
import type { Dimensions, Money } from '../parcels/model.js';

/** contract: QuoteParcel */
export interface QuoteParcel {
  weight: number;
  weightUnit?: 'KG' | 'LB';
  dimensions?: Dimensions;
}

/** contract: ShippingQuoteRequest */
export interface ShippingQuoteInput {
  senderAddressId: string;
  receiverAddressId: string;
  parcels: QuoteParcel[];
}

/** contract: InlineShippingQuoteRequest — addresses embedded, not stored. */
export interface InlineShippingQuoteInput {
  sender: AddressInput;
  receiver: AddressInput;
  parcels: QuoteParcel[];
}

/** contract: ShippingQuote */
export interface ShippingQuote {
  id: string;
  deliveryOptionId: string;
  serviceDefinitionId: string;
  carrierId: string;
  serviceId: string;
  name: string;
  price: Money;
  deliveryDaysMin?: number;
  deliveryDaysMax?: number;
  expiresAt: string;
}

/** A stored batch; its id is the purchaseId. */
export interface StoredQuoteBatch {
  id: string;
  createdAt: string;
  expiresAt: string;
  quotes?: ShippingQuote[];
}

/** contract: ShippingQuoteBatch — status computed on the clock at read time. */
export interface ShippingQuoteBatch {
  purchaseId: string;
  status: 'VALID' | 'EXPIRED';
  createdAt: string;
  expiresAt: string;
  quotes?: ShippingQuote[];
}

/** Index from a quote id to its batch, for bookings that name a shippingQuoteId. */
export interface QuoteIndexEntry {
  id: string;
  purchaseId: string;
}
