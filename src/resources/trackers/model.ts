import type { CarrierLocation } from '../../carriers/index.js';

/** contract: TrackerStatus */
export type TrackerStatus = 'CREATED' | 'PICKED_UP' | 'IN_TRANSIT' | 'OUT_FOR_DELIVERY' | 'DELIVERED' | 'EXCEPTION' | 'RETURNED' | 'LOST';

/** How a parcel's journey ends; anything but DELIVERED is forced by a QA scenario (effect `tracker`). */
export type TrackerOutcome = 'DELIVERED' | 'EXCEPTION' | 'RETURNED' | 'LOST';

/** contract: TrackerEvent */
export interface TrackerEvent {
  status: TrackerStatus;
  occurredAt: string;
  description: string;
  location?: string;
}

/** contract: TrackerRequest */
export interface TrackerInput {
  trackingNumber: string;
  carrierId?: string;
}

/** contract: Tracker */
export interface Tracker {
  id: string;
  createdAt: string;
  updatedAt: string;
  trackingNumber: string;
  carrierId: string;
  shipmentBookingId: string;
  parcelId?: string;
  status: TrackerStatus;
  estimatedDeliveryAt?: string;
  deliveredAt?: string;
  /** The scans that have happened, oldest first; the last one's status is `status`. */
  events: TrackerEvent[];
}

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
