import { created, ok, type HandlerMap } from '../shared/operation-handler.js';
import { accountOf, pageArgs } from '../shared/crud-routes.js';
import type { ShipmentManifestService } from './service.js';

export function shipmentManifestRoutes(manifests: ShipmentManifestService): HandlerMap {
  return {
    createShipmentManifest: (ctx) => created(manifests.create(accountOf(ctx.principal), ctx.path['shipment-dispatch-id'] as string).id),
    listShipmentManifests: (ctx) => ok(manifests.list(accountOf(ctx.principal), pageArgs(ctx.query), { shipmentDispatchId: ctx.query.shipment_dispatch_id })),
    getShipmentManifest: (ctx) => ok(manifests.get(accountOf(ctx.principal), ctx.path['shipment-manifest-id'] as string)),
  };
}
