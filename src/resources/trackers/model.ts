import type { components } from '../../client/schema.js';
import type { CarrierLocation } from '../../carriers/index.js';

type Schemas = components['schemas'];

/** contract: TrackerStatus */
export type TrackerStatus = Schemas['TrackerStatus'];

/** How a parcel's journey ends; anything but DELIVERED is forced by a QA scenario (effect `tracker`). */
export type TrackerOutcome = 'DELIVERED' | 'EXCEPTION' | 'RETURNED' | 'LOST';

/** contract: TrackerEvent */
export type TrackerEvent = Schemas['TrackerEvent'];

/** contract: TrackerRequest */
export type TrackerInput = Schemas['TrackerRequest'];

/** contract: Tracker */
export type Tracker = Schemas['Tracker'];

/** What the store keeps: the Tracker plus its whole planned journey (past and future scans). */
export interface StoredTracker extends Tracker {
  plan: TrackerEvent[];
}

/** What a booking tells the trackers about one booked parcel. */
export interface TrackedParcelInput {
  trackingNumber: string;
  carrierId: string;
  serviceId: string;
  shipmentBookingId: string;
  parcelId: string;
  /** When the carrier accepted the booking (the CREATED scan). */
  bookedAt: string;
  sender: CarrierLocation;
  receiver: CarrierLocation;
}

/**
 * A tracking number this account may track, kept per account under the tracking number: the
 * parcel's planned journey (fixed at booking, so a tracker deleted and created again tells the
 * same story) and the id of its current tracker, if any.
 */
export interface TrackedParcel extends TrackedParcelInput {
  /** The tracking number. */
  id: string;
  plan: TrackerEvent[];
  estimatedDeliveryAt: string;
  trackerId?: string;
}
