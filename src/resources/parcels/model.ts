/** contract: Dimensions */
export interface Dimensions {
  length: number;
  width: number;
  height: number;
  unit: 'CM' | 'IN';
}

/** contract: Money */
export interface Money {
  amount: number;
  currency: string;
}

/** contract: ParcelRequest (contract/DECISIONS.md "Parcel fields"). */
export interface ParcelInput {
  weight: number;
  weightUnit?: 'KG' | 'LB';
  dimensions?: Dimensions;
  packingTypeId?: string;
  reference?: string;
  description?: string;
  value?: Money;
}

/** contract: Parcel. itemIds, shipmentBookingId and trackingNumber are server-maintained. */
export interface Parcel extends Omit<ParcelInput, 'weightUnit'> {
  id: string;
  createdAt: string;
  updatedAt: string;
  weightUnit: 'KG' | 'LB';
  itemIds?: string[];
  shipmentBookingId?: string;
  trackingNumber?: string;
}

/** What a booking records on each parcel it uses. */
export interface ParcelBooking {
  shipmentBookingId: string;
  trackingNumber: string;
}
