import type { CarrierConnection, CarrierDefinitionRef } from './connection.js';
import type { SimulatedCarrier } from './simulated-carrier.js';
import type { SimulatedCarrierNetwork } from './simulated-network.js';

/**
 * PRODUCTION side. Spec: STAGING → PRODUCTION means "live data may be sent to the carrier".
 * Every call travels over the SimulatedCarrierNetwork, where registered interceptors inject
 * latency, outages and rejections, and where the call log records it; the carrier then issues
 * live-format tracking numbers (`specimen: false`).
 *
 * @example createProductionConnection(dhl, definition, network).book(request) // may throw CarrierError
 */
export function createProductionConnection(carrier: SimulatedCarrier, definition: CarrierDefinitionRef, network: SimulatedCarrierNetwork): CarrierConnection {
  const callOf = (operation: 'BOOK' | 'TRACK', accountId: string, request: unknown) => ({
    operation,
    carrierId: carrier.carrier.id,
    carrierCode: carrier.carrier.code,
    carrierDefinitionId: definition.id,
    accountId,
    request,
  });
  return {
    mode: 'PRODUCTION',
    carrier: carrier.carrier,
    carrierDefinitionId: definition.id,
    book: (request, wait) => network.call({ ...callOf('BOOK', request.accountId, request), wait }, () => carrier.book(request, 'PRODUCTION')),
    track: (request) => network.call(callOf('TRACK', request.accountId, request), () => carrier.track(request)),
  };
}
