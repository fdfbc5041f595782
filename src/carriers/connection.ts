import type { Carrier } from '../carrier-catalogue/model.js';
import type { CarrierBookingRequest, CarrierBookingResult, CarrierTrackingEvent, CarrierTrackingRequest } from './simulated-carrier.js';

/** The few Carrier Definition fields the carriers layer needs (structural: no import of resources). */
export interface CarrierDefinitionRef {
  id: string;
  carrierId: string;
  mode: 'STAGING' | 'PRODUCTION';
  settings?: { key: string; value: string }[];
}

/**
 * A Carrier Definition's line to its carrier. Which side it is on is fixed by the
 * definition's mode when the connection is made (carriers.forDefinition).
 */
export interface CarrierConnection {
  readonly mode: 'STAGING' | 'PRODUCTION';
  readonly carrier: Carrier;
  readonly carrierDefinitionId: string;
  /**
   * Books parcels; rejects with a CarrierError (PRODUCTION: also injected faults). `wait`: how
   * the call waits out an injected latency (CarrierCall.wait); STAGING never waits.
   */
  book(request: CarrierBookingRequest, wait?: (ms: number) => Promise<void>): Promise<CarrierBookingResult>;
  /** Scans of one parcel up to now on the virtual clock. */
  track(request: CarrierTrackingRequest): Promise<CarrierTrackingEvent[]>;
}
