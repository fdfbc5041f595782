import type { components } from '../../client/schema.js';
import type { DocumentParty } from '../../rendering/model.js';
import type { AddressInput } from '../addresses/model.js';
import type { CarrierDefinitionInput } from '../carrier-definitions/model.js';
import type { CustomsDeclarationInput } from '../customs-declarations/model.js';
import type { ParcelInput } from '../parcels/model.js';

type Schemas = components['schemas'];

/** contract: Party — an Address or (receivers only) a PUDO Point in a role. */
export type Party = Schemas['Party'];
export type PartyRole = Party['role'];

/** contract: ShipmentBookingRequest */
export type ShipmentBookingInput = Schemas['ShipmentBookingRequest'];

/** contract: InlineShipmentBookingRequest */
export type InlineShipmentBookingInput = Schemas['InlineShipmentBookingRequest'];

/** contract: BookedParcel */
export type BookedParcel = Schemas['BookedParcel'];

/** contract: ShipmentBooking (trackerIds is derived from the trackers when read). */
export type ShipmentBooking = Schemas['ShipmentBooking'];
export type ShipmentBookingStatus = ShipmentBooking['status'];

/**
 * What the booking sent to the carrier, kept beside it: manifests print it and it must not
 * change when an Address used by the booking is edited or deleted afterwards.
 */
export interface BookingSnapshot {
  carrier: { name: string; code: string };
  service: { name: string; code: string };
  sender: DocumentParty;
  receiver: DocumentParty;
  /** Parcel weights in kg, in parcel order. */
  weightsKg: number[];
  /** Carrier's reference of the shipment (STAGING ones start with TEST-). */
  carrierReference?: string;
}

/** The stored booking: the view plus its snapshot. */
export interface StoredShipmentBooking extends Omit<ShipmentBooking, 'trackerIds'> {
  snapshot: BookingSnapshot;
}

/** A SHIPMENT_BOOKING event's payload (contract: ShipmentBookingEventPayload); `code` is also the event type. */
export type ShipmentBookingEventCode = Schemas['ShipmentBookingEventPayload']['code'];
