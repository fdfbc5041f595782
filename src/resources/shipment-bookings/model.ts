import type { DocumentParty } from '../../documents/model.js';
import type { AddressInput } from '../addresses/model.js';
import type { CarrierDefinitionInput } from '../carrier-definitions/model.js';
import type { CustomsDeclarationInput } from '../customs-declarations/model.js';
import type { ParcelInput } from '../parcels/model.js';

export type PartyRole = 'SENDER' | 'RECEIVER' | 'RETURN' | 'PICKUP' | 'BILLING';

/** contract: Party — an Address or (receivers only) a PUDO Point in a role. */
export interface Party {
  role: PartyRole;
  entityType: 'ADDRESS' | 'PUDO';
  id: string;
}

/** contract: ShipmentBookingRequest */
export interface ShipmentBookingInput {
  serviceDefinitionId: string;
  shipmentChannelId: string;
  parties: Party[];
  parcelIds: string[];
  customsDeclarationId?: string;
  dangerousGoodsDeclarationIds?: string[];
  shippingQuoteId?: string;
  reference?: string;
  shipDate?: string;
}

/** contract: InlineShipmentBookingRequest */
export interface InlineShipmentBookingInput {
  shipmentChannelId?: string;
  serviceDefinitionId?: string;
  carrierDefinition?: CarrierDefinitionInput;
  serviceDefinition?: { serviceId: string; name: string };
  sender: AddressInput;
  receiver?: AddressInput;
  receiverPudoPointId?: string;
  parcels: ParcelInput[];
  customsDeclaration?: CustomsDeclarationInput;
  reference?: string;
  shipDate?: string;
}

export type ShipmentBookingStatus = 'BOOKED' | 'FAILED' | 'CANCELLED' | 'DISPATCHED' | 'MANIFESTED';

/** contract: BookedParcel */
export interface BookedParcel {
  parcelId: string;
  trackingNumber?: string;
  labelDocumentId?: string;
}

/** contract: ShipmentBooking (trackerIds is derived from the trackers when read). */
export interface ShipmentBooking {
  id: string;
  createdAt: string;
  updatedAt: string;
  status: ShipmentBookingStatus;
  mode: 'STAGING' | 'PRODUCTION';
  carrierId: string;
  serviceId: string;
  carrierDefinitionId: string;
  serviceDefinitionId: string;
  shipmentChannelId: string;
  parties: Party[];
  parcels: BookedParcel[];
  trackingNumbers?: string[];
  documentIds?: string[];
  failureReason?: string;
  customsDeclarationId?: string;
  dangerousGoodsDeclarationIds?: string[];
  shippingQuoteId?: string;
  reference?: string;
  shipDate?: string;
  shipmentDispatchId?: string;
  trackerIds?: string[];
}

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
export type ShipmentBookingEventCode = 'CREATED' | 'UPDATED' | 'CANCELLED' | 'DISPATCHED' | 'MANIFESTED';
