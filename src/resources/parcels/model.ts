import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: Dimensions */
export type Dimensions = Schemas['Dimensions'];

/** contract: Money */
export type Money = Schemas['Money'];

/** contract: ParcelRequest (contract/DECISIONS.md "Parcel fields"). */
export type ParcelInput = Schemas['ParcelRequest'];

/** contract: Parcel. itemIds, shipmentBookingId and trackingNumber are server-maintained. */
export type Parcel = Schemas['Parcel'];

/** What a booking records on each parcel it uses. */
export interface ParcelBooking {
  shipmentBookingId: string;
  trackingNumber: string;
}
