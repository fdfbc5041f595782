import type { HandlerMap } from '../app/operation-handler.js';
import type { MockRuntime } from '../app/runtime.js';
import { accountRoutes } from './accounts/routes.js';
import { createAccountService } from './accounts/service.js';
import { addressRoutes } from './addresses/routes.js';
import { createAddressService } from './addresses/service.js';
import { affiliateRoutes } from './affiliates/routes.js';
import { createAffiliateService } from './affiliates/service.js';
import { createMockEventService } from './event-channels/mock-events.js';
import { eventChannelRoutes } from './event-channels/routes.js';
import { createEventChannelService } from './event-channels/service.js';
import { createShippingOperations, shippingOperationRoutes } from './shipping-operations.js';
import { createShipments, shipmentRoutes } from './shipments.js';
import { createCarriers, type IssuedNumbers } from '../carriers/index.js';
import type { Entity } from '../store/collection.js';
import type { Store } from '../store/store.js';
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

/**
 * The domain services of one mock instance, built once. Families that depend on others
 * receive them here (bookings need parcels, addresses, definitions, …).
 * Add a family: build its service below, then spread its routes in createOperationHandlers.
 */
/** Issued carrier numbers live in the store's global scope: they outlive a restart of a durable mock. */
function issuedNumbersIn(store: Store): IssuedNumbers {
  const numbers = () => store.global.collection<Entity>('issued-carrier-numbers');
  return { has: (key) => numbers().has(key), add: (key) => void numbers().insert({ id: key }) };
}

export function createServices(runtime: MockRuntime) {
  const accounts = createAccountService(runtime);
  const tokens = createTokenIssuer(runtime, accounts);
  const affiliates = createAffiliateService(runtime);
  const addresses = createAddressService(runtime);
  const eventChannels = createEventChannelService(runtime);
  const mockEvents = createMockEventService(runtime);
  // Carrier data and configuration. `carriers` is the simulated carriers layer bookings send
  // to: carriers.forDefinition(carrierDefinition).book(…) (STAGING sandbox or PRODUCTION network).
  const catalogue = createCatalogueService(runtime);
  const carriers = createCarriers({
    catalogue: runtime.catalogue,
    clock: runtime.clock,
    random: runtime.random,
    interceptors: runtime.carrierInterceptors,
    issued: issuedNumbersIn(runtime.store),
  });
  const carrierDefinitions = createCarrierDefinitionService(runtime, {
    serviceDefinitionsOf: (accountId, carrierDefinitionId) => serviceDefinitions.referencing(accountId, carrierDefinitionId),
  });
  const serviceDefinitions = createServiceDefinitionService(runtime, carrierDefinitions);
  const shipmentChannels = createShipmentChannelService(runtime);
  const operations = createShippingOperations(runtime, { accounts, addresses, serviceDefinitions });
  // Bookings, dispatches, manifests and trackers build on all of the above.
  const shipments = createShipments(runtime, { ...operations, addresses, carriers, carrierDefinitions, serviceDefinitions, shipmentChannels });
  return {
    accounts, tokens, affiliates, addresses, eventChannels, mockEvents,
    catalogue, carriers, carrierDefinitions, serviceDefinitions, shipmentChannels,
    ...operations,
    ...shipments,
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
    ...shippingOperationRoutes(services),
    ...shipmentRoutes(services),
  };
}
