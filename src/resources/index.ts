import type { HandlerMap } from './shared/operation-handler.js';
import type { DomainDeps } from './shared/domain-deps.js';
import { accountRoutes } from './accounts/routes.js';
import { createAccountService } from './accounts/service.js';
import { addressRoutes } from './addresses/routes.js';
import { createAddressService } from './addresses/service.js';
import { affiliateRoutes } from './affiliates/routes.js';
import { createAffiliateService } from './affiliates/service.js';
import { createMockEventService } from './event-channels/mock-events.js';
import { eventChannelRoutes } from './event-channels/routes.js';
import { createEventChannelService } from './event-channels/service.js';
import { createCarriers, type IssuedNumbers } from '../carriers/index.js';
import type { Entity } from '../store/collection.js';
import { ISSUED_NUMBERS_COLLECTION, type Store } from '../store/store.js';
import { carrierDefinitionRoutes } from './carrier-definitions/routes.js';
import { createCarrierDefinitionService } from './carrier-definitions/service.js';
import { catalogueRoutes } from './catalogue/routes.js';
import { createCatalogueService } from './catalogue/service.js';
import { serviceDefinitionRoutes } from './service-definitions/routes.js';
import { createServiceDefinitionService } from './service-definitions/service.js';
import { shipmentChannelRoutes } from './shipment-channels/routes.js';
import { createShipmentChannelService } from './shipment-channels/service.js';
import { tokenRoutes } from './tokens/routes.js';
import { createTokenIssuer } from './tokens/service.js';
import { createCustomsDeclarationService } from './customs-declarations/service.js';
import { createDangerousGoodsDeclarationService } from './dangerous-goods-declarations/service.js';
import { createDeliveryOptionService } from './delivery-options/service.js';
import { createDocumentService } from './documents/service.js';
import { createParcelItemService } from './parcel-items/service.js';
import { createParcelService } from './parcels/service.js';
import { createPudoPointService } from './pudo-points/service.js';
import { createReportService } from './reports/service.js';
import { createShipmentBookingService } from './shipment-bookings/service.js';
import { createShipmentDispatchService } from './shipment-dispatches/service.js';
import { createShipmentManifestService } from './shipment-manifests/service.js';
import { createShippingQuoteService } from './shipping-quotes/service.js';
import { createTrackerService } from './trackers/service.js';
import { createUsageLedger } from '../billing/usage.js';
import { createZoneService } from './zones/service.js';
import { customsDeclarationRoutes } from './customs-declarations/routes.js';
import { dangerousGoodsDeclarationRoutes } from './dangerous-goods-declarations/routes.js';
import { deliveryOptionRoutes } from './delivery-options/routes.js';
import { documentRoutes } from './documents/routes.js';
import { parcelItemRoutes } from './parcel-items/routes.js';
import { parcelRoutes } from './parcels/routes.js';
import { pudoPointRoutes } from './pudo-points/routes.js';
import { reportRoutes } from './reports/routes.js';
import { shipmentBookingRoutes } from './shipment-bookings/routes.js';
import { shipmentDispatchRoutes } from './shipment-dispatches/routes.js';
import { shipmentManifestRoutes } from './shipment-manifests/routes.js';
import { shippingQuoteRoutes } from './shipping-quotes/routes.js';
import { trackerRoutes } from './trackers/routes.js';
import { zoneRoutes } from './zones/routes.js';

/** Issued carrier numbers live in the store's global scope: they outlive a restart of a durable mock. */
function issuedNumbersIn(store: Store): IssuedNumbers {
  const numbers = () => store.global.collection<Entity>(ISSUED_NUMBERS_COLLECTION);
  return { has: (key) => numbers().has(key), add: (key) => void numbers().insert({ id: key }) };
}

/**
 * The composition root of the domain: every service of one mock instance, built once, here and
 * nowhere else. Each service receives the parts of the instance it names (shared/domain-deps.ts)
 * and the services it builds on; the order below is the order of those dependencies.
 * Add a family: build its service below, then spread its routes in createOperationHandlers.
 *
 * @example const services = createServices({ store, clock, random, events, catalogue, … });
 */
export function createServices(deps: DomainDeps) {
  const { catalogue } = deps;
  // Accounts, credentials and tokens.
  const accounts = createAccountService(deps);
  const tokens = createTokenIssuer(deps, accounts);
  const affiliates = createAffiliateService(deps);
  // Events the account subscribes to, and the mock's own test events.
  const eventChannels = createEventChannelService(deps);
  const mockEvents = createMockEventService(deps);

  // Carrier data and configuration. `carriers` is the simulated carriers layer bookings send
  // to: carriers.forDefinition(carrierDefinition).book(…) (STAGING sandbox or PRODUCTION network).
  const catalogueService = createCatalogueService(deps);
  const carriers = createCarriers({ catalogue, clock: deps.clock, random: deps.random, interceptors: deps.carrierInterceptors, issued: issuedNumbersIn(deps.store), parts: deps.store.parts });
  const carrierDefinitions = createCarrierDefinitionService(deps, {
    serviceDefinitionsOf: (accountId, carrierDefinitionId) => serviceDefinitions.referencing(accountId, carrierDefinitionId),
  });
  const serviceDefinitions = createServiceDefinitionService(deps, carrierDefinitions);
  const shipmentChannels = createShipmentChannelService(deps);

  // The operational objects a booking is made of, usage and reports. They reference each
  // other (items → parcels, DG declarations → parcels, delivery options → zones).
  const addresses = createAddressService(deps);
  const usage = createUsageLedger(deps);
  const parcels = createParcelService(deps, { catalogue });
  const parcelItems = createParcelItemService(deps, { parcels });
  const customsDeclarations = createCustomsDeclarationService(deps, { catalogue });
  const dangerousGoodsDeclarations = createDangerousGoodsDeclarationService(deps, { catalogue, parcels });
  const documents = createDocumentService(deps);
  const pudoPoints = createPudoPointService(deps, { catalogue, addresses, usage });
  const zones = createZoneService(deps);
  const deliveryOptions = createDeliveryOptionService(deps, { zones, serviceDefinitions });
  const shippingQuotes = createShippingQuoteService(deps, { addresses, zones, deliveryOptions, serviceDefinitions });
  const reports = createReportService(deps, { usage, accounts });

  // Shipments on top of everything else: bookings use the configuration, the operational
  // objects, documents, billing and the carriers; dispatches and manifests move bookings on;
  // trackers follow every booked parcel on the virtual clock.
  const trackers = createTrackerService(deps, { carriers });
  const shipmentBookings = createShipmentBookingService(deps, {
    catalogue, addresses, carrierDefinitions, serviceDefinitions, shipmentChannels, parcels,
    customsDeclarations, dangerousGoodsDeclarations, pudoPoints, shippingQuotes,
    carriers, usage, documents, trackers,
  });
  const shipmentDispatches = createShipmentDispatchService(deps, { bookings: shipmentBookings, carrierDefinitions, addresses });
  const shipmentManifests = createShipmentManifestService(deps, { dispatches: shipmentDispatches, bookings: shipmentBookings, documents, addresses });

  return {
    accounts, tokens, affiliates, eventChannels, mockEvents,
    catalogue: catalogueService, carriers, carrierDefinitions, serviceDefinitions, shipmentChannels,
    addresses, usage, parcels, parcelItems, customsDeclarations, dangerousGoodsDeclarations, documents,
    pudoPoints, zones, deliveryOptions, shippingQuotes, reports,
    trackers, shipmentBookings, shipmentDispatches, shipmentManifests,
  };
}

export type Services = ReturnType<typeof createServices>;

/** operationId → stateful handler. Operations missing here fall to the `unhandled` policy. */
export function createOperationHandlers(services: Services): HandlerMap {
  return {
    ...tokenRoutes(services.tokens),
    ...accountRoutes(services.accounts),
    ...affiliateRoutes(services.affiliates),
    ...addressRoutes(services.addresses),
    ...eventChannelRoutes(services.eventChannels, services.mockEvents),
    ...catalogueRoutes(services.catalogue),
    ...carrierDefinitionRoutes(services.carrierDefinitions),
    ...serviceDefinitionRoutes(services.serviceDefinitions),
    ...shipmentChannelRoutes(services.shipmentChannels),
    ...parcelRoutes(services.parcels),
    ...parcelItemRoutes(services.parcelItems),
    ...customsDeclarationRoutes(services.customsDeclarations),
    ...dangerousGoodsDeclarationRoutes(services.dangerousGoodsDeclarations),
    ...documentRoutes(services.documents),
    ...pudoPointRoutes(services.pudoPoints),
    ...zoneRoutes(services.zones),
    ...deliveryOptionRoutes(services.deliveryOptions),
    ...shippingQuoteRoutes(services.shippingQuotes),
    ...reportRoutes(services.reports),
    ...shipmentBookingRoutes(services.shipmentBookings),
    ...shipmentDispatchRoutes(services.shipmentDispatches),
    ...shipmentManifestRoutes(services.shipmentManifests),
    ...trackerRoutes(services.trackers),
  };
}
