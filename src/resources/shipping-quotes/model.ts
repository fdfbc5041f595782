import type { components } from '../../client/schema.js';
import type { AddressInput } from '../addresses/model.js';
import type { Dimensions, Money } from '../parcels/model.js';

type Schemas = components['schemas'];

/** contract: QuoteParcel */
export type QuoteParcel = Schemas['QuoteParcel'];

/** contract: ShippingQuoteRequest */
export type ShippingQuoteInput = Schemas['ShippingQuoteRequest'];

/** contract: InlineShippingQuoteRequest — addresses embedded, not stored. */
export type InlineShippingQuoteInput = Schemas['InlineShippingQuoteRequest'];

/** contract: ShippingQuote */
export type ShippingQuote = Schemas['ShippingQuote'];

/** A stored batch; its id is the purchaseId. */
export interface StoredQuoteBatch {
  id: string;
  createdAt: string;
  expiresAt: string;
  quotes?: ShippingQuote[];
}

/** contract: ShippingQuoteBatch — status computed on the clock at read time. */
export type ShippingQuoteBatch = Schemas['ShippingQuoteBatch'];

/** Index from a quote id to its batch, for bookings that name a shippingQuoteId. */
export interface QuoteIndexEntry {
  id: string;
  purchaseId: string;
}
