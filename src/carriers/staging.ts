import type { CarrierConnection, CarrierDefinitionRef } from './connection.js';
import type { SimulatedCarrier } from './simulated-carrier.js';

/**
 * STAGING side. Spec: "A Carrier Definition in STAGING mode does not communicate live with
 * carriers." The simulated carrier's sandbox answers in-process: no network, no interceptors,
 * so injected outages never affect it; tracking numbers come from the serial type's
 * staging template (test numbers) and results are `specimen: true`.
 *
 * @example createStagingConnection(dhl, definition).book(request) // trackingNumbers like '0000…'
 */
export function createStagingConnection(carrier: SimulatedCarrier, definition: CarrierDefinitionRef): CarrierConnection {
  return {
    mode: 'STAGING',
    carrier: carrier.carrier,
    carrierDefinitionId: definition.id,
    book: async (request) => carrier.book(request, 'STAGING'),
    track: async (request) => carrier.track(request),
  };
}
