import type { HandlerMap } from '../app/operation-handler.js';
import type { MockRuntime } from '../app/runtime.js';
import type { Carriers } from '../carriers/index.js';
import type { AddressService } from './addresses/service.js';
import type { CarrierDefinitionService } from './carrier-definitions/service.js';
import type { ServiceDefinitionService } from './service-definitions/service.js';
import { shipmentBookingRoutes } from './shipment-bookings/routes.js';
import { createShipmentBookingService } from './shipment-bookings/service.js';
import type { ShipmentChannelService } from './shipment-channels/service.js';
import { shipmentDispatchRoutes } from './shipment-dispatches/routes.js';
import { createShipmentDispatchService } from './shipment-dispatches/service.js';
import { shipmentManifestRoutes } from './shipment-manifests/routes.js';
import { createShipmentManifestService } from './shipment-manifests/service.js';
import type { ShippingOperations } from './shipping-operations.js';
import { trackerRoutes } from './trackers/routes.js';
import { createTrackerService } from './trackers/service.js';

/**
 * The shipping families on top of everything else: Shipment Bookings (normal and inline),
 * Shipment Dispatches, Shipment Manifests and Trackers. Bookings use the configuration
 * (definitions, channels), the operational objects (addresses, parcels, declarations, PUDO
 * points, quotes), documents, billing and the simulated carriers; dispatches and manifests move
 * bookings on; trackers follow every booked parcel on the virtual clock.
 *
 * @example const shipments = createShipments(runtime, { ...operations, addresses, carriers, carrierDefinitions, serviceDefinitions, shipmentChannels });
 */
export function createShipments(
  runtime: MockRuntime,
  deps: ShippingOperations & {
    addresses: AddressService;
    carriers: Carriers;
    carrierDefinitions: CarrierDefinitionService;
    serviceDefinitions: ServiceDefinitionService;
    shipmentChannels: ShipmentChannelService;
  },
) {
  const trackers = createTrackerService(runtime, { carriers: deps.carriers });
  const shipmentBookings = createShipmentBookingService(runtime, { ...deps, catalogue: runtime.catalogue, trackers });
  const shipmentDispatches = createShipmentDispatchService(runtime, { bookings: shipmentBookings, carrierDefinitions: deps.carrierDefinitions, addresses: deps.addresses });
  const shipmentManifests = createShipmentManifestService(runtime, {
    dispatches: shipmentDispatches,
    bookings: shipmentBookings,
    documents: deps.documents,
    addresses: deps.addresses,
  });
  return { shipmentBookings, shipmentDispatches, shipmentManifests, trackers };
}

export type Shipments = ReturnType<typeof createShipments>;

/** operationId → handler for bookings, dispatches, manifests and trackers. */
export function shipmentRoutes(shipments: Shipments): HandlerMap {
  return {
    ...shipmentBookingRoutes(shipments.shipmentBookings),
    ...shipmentDispatchRoutes(shipments.shipmentDispatches),
    ...shipmentManifestRoutes(shipments.shipmentManifests),
    ...trackerRoutes(shipments.trackers),
  };
}
