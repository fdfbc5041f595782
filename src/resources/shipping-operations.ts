import type { HandlerMap } from '../app/operation-handler.js';
import type { MockRuntime } from '../app/runtime.js';
import { createUsageLedger } from '../billing/usage.js';
import type { AccountService } from './accounts/service.js';
import type { AddressService } from './addresses/service.js';
import { customsDeclarationRoutes } from './customs-declarations/routes.js';
import { createCustomsDeclarationService } from './customs-declarations/service.js';
import { dangerousGoodsDeclarationRoutes } from './dangerous-goods-declarations/routes.js';
import { createDangerousGoodsDeclarationService } from './dangerous-goods-declarations/service.js';
import { deliveryOptionRoutes } from './delivery-options/routes.js';
import { createDeliveryOptionService } from './delivery-options/service.js';
import { documentRoutes } from './documents/routes.js';
import { createDocumentService } from './documents/service.js';
import { parcelItemRoutes } from './parcel-items/routes.js';
import { createParcelItemService } from './parcel-items/service.js';
import { parcelRoutes } from './parcels/routes.js';
import { createParcelService } from './parcels/service.js';
import { pudoPointRoutes } from './pudo-points/routes.js';
import { createPudoPointService } from './pudo-points/service.js';
import { reportRoutes } from './reports/routes.js';
import { createReportService } from './reports/service.js';
import type { ServiceDefinitionLookup } from './shared/service-definition-lookup.js';
import { shippingQuoteRoutes } from './shipping-quotes/routes.js';
import { createShippingQuoteService } from './shipping-quotes/service.js';
import { zoneRoutes } from './zones/routes.js';
import { createZoneService } from './zones/service.js';

/**
 * The operational families below Shipment Bookings: parcels and their items, declarations,
 * documents, PUDO points, zones, delivery options, quotes, usage and reports. Built together
 * because they reference each other (items → parcels, DG declarations → parcels, delivery
 * options → zones); bookings, dispatches, manifests and trackers build on these services.
 *
 * @example const ops = createShippingOperations(runtime, { accounts, addresses, serviceDefinitions });
 */
export function createShippingOperations(
  runtime: MockRuntime,
  deps: { accounts: AccountService; addresses: AddressService; serviceDefinitions: ServiceDefinitionLookup },
) {
  const catalogue = runtime.catalogue;
  const usage = createUsageLedger(runtime);
  const parcels = createParcelService(runtime, { catalogue });
  const parcelItems = createParcelItemService(runtime, { parcels });
  const customsDeclarations = createCustomsDeclarationService(runtime, { catalogue });
  const dangerousGoodsDeclarations = createDangerousGoodsDeclarationService(runtime, { catalogue, parcels });
  const documents = createDocumentService(runtime);
  const pudoPoints = createPudoPointService(runtime, { catalogue, addresses: deps.addresses, usage });
  const zones = createZoneService(runtime);
  const deliveryOptions = createDeliveryOptionService(runtime, { zones, serviceDefinitions: deps.serviceDefinitions });
  const shippingQuotes = createShippingQuoteService(runtime, {
    addresses: deps.addresses,
    zones,
    deliveryOptions,
    serviceDefinitions: deps.serviceDefinitions,
  });
  const reports = createReportService(runtime, { usage, accounts: deps.accounts });
  return { usage, parcels, parcelItems, customsDeclarations, dangerousGoodsDeclarations, documents, pudoPoints, zones, deliveryOptions, shippingQuotes, reports };
}

export type ShippingOperations = ReturnType<typeof createShippingOperations>;

/** operationId → handler for every operation of the families above. */
export function shippingOperationRoutes(ops: ShippingOperations): HandlerMap {
  return {
    ...parcelRoutes(ops.parcels),
    ...parcelItemRoutes(ops.parcelItems),
    ...customsDeclarationRoutes(ops.customsDeclarations),
    ...dangerousGoodsDeclarationRoutes(ops.dangerousGoodsDeclarations),
    ...documentRoutes(ops.documents),
    ...pudoPointRoutes(ops.pudoPoints),
    ...zoneRoutes(ops.zones),
    ...deliveryOptionRoutes(ops.deliveryOptions),
    ...shippingQuoteRoutes(ops.shippingQuotes),
    ...reportRoutes(ops.reports),
  };
}
