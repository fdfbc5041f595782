import type { Clock } from '../clock/clock.js';
import type { Catalogue } from '../carrier-catalogue/model.js';
import type { Random } from '../random/random.js';
import type { StateRegistry } from '../store/state-registry.js';
import type { CarrierConnection, CarrierDefinitionRef } from './connection.js';
import type { CarrierInterceptors } from './interceptors.js';
import { createProductionConnection } from './production.js';
import { createSimulatedCarrier, memoryIssuedNumbers, type IssuedNumbers, type SimulatedCarrier } from './simulated-carrier.js';
import { createSimulatedCarrierNetwork, type SimulatedCarrierNetwork } from './simulated-network.js';
import { createStagingConnection } from './staging.js';

export { CarrierError, type CarrierErrorKind } from './carrier-error.js';
export type { CarrierConnection, CarrierDefinitionRef } from './connection.js';
export type { CarrierCall, CarrierInterceptor, CarrierInterceptors, CarrierOperation } from './interceptors.js';
export type {
  CarrierBookingRequest,
  CarrierBookingResult,
  CarrierLocation,
  CarrierTrackingEvent,
  CarrierTrackingRequest,
  IssuedNumbers,
  SimulatedCarrier,
} from './simulated-carrier.js';
export type { CarrierCallRecord, SimulatedCarrierNetwork } from './simulated-network.js';

/** The simulated carriers of one mock instance. */
export interface Carriers {
  /**
   * The connection a Carrier Definition books through: its mode picks the side —
   * STAGING (staging.ts, never on the network) or PRODUCTION (production.ts, through the network).
   */
  forDefinition(definition: CarrierDefinitionRef): CarrierConnection;
  /** The simulated carrier of a catalogue carrier id. */
  simulated(carrierId: string): SimulatedCarrier;
  readonly network: SimulatedCarrierNetwork;
}

/**
 * @example
 * const carriers = createCarriers({ catalogue, clock, random, interceptors });
 * const result = await carriers.forDefinition(carrierDefinition).book({ accountId, serviceId, parcels, sender, receiver });
 */
export function createCarriers(deps: { catalogue: Catalogue; clock: Clock; random: Random; interceptors: CarrierInterceptors; issued?: IssuedNumbers; parts?: StateRegistry }): Carriers {
  const network = createSimulatedCarrierNetwork({ clock: deps.clock, interceptors: deps.interceptors, parts: deps.parts });
  // One registry for every carrier of this instance (a carrier object per lookup must not reissue).
  const issued = deps.issued ?? memoryIssuedNumbers();
  const simulatedById = new Map<string, SimulatedCarrier>();

  function simulated(carrierId: string): SimulatedCarrier {
    let found = simulatedById.get(carrierId);
    if (!found) {
      const entry = deps.catalogue.carrier(carrierId);
      if (!entry) throw new Error(`no carrier ${carrierId} in the catalogue`);
      simulatedById.set(carrierId, (found = createSimulatedCarrier(entry, { ...deps, issued })));
    }
    return found;
  }

  return {
    forDefinition(definition) {
      const carrier = simulated(definition.carrierId);
      return definition.mode === 'PRODUCTION'
        ? createProductionConnection(carrier, definition, network)
        : createStagingConnection(carrier, definition);
    },
    simulated,
    network,
  };
}
