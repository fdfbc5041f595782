import type { Money } from '../parcels/model.js';

/** contract: ParcelItemRequest (contract/DECISIONS.md "Parcel Item fields"). */
export interface ParcelItemInput {
  parcelId: string;
  description: string;
  quantity: number;
  /** In the weightUnit of the parent Parcel. */
  unitWeight?: number;
  unitValue?: Money;
  hsCode?: string;
  originCountryCode?: string;
  sku?: string;
}

/** contract: ParcelItem */
export interface ParcelItem extends ParcelItemInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}
