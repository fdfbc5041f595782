import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { ShipmentDispatch } from './model.js';
import type { ShipmentDispatchService } from './service.js';

export function shipmentDispatchRoutes(dispatches: ShipmentDispatchService): HandlerMap {
  return crudRoutes(
    dispatches,
    {
      create: 'createShipmentDispatch',
      list: 'listShipmentDispatches',
      get: 'getShipmentDispatch',
      replace: 'replaceShipmentDispatch',
      remove: 'deleteShipmentDispatch',
    },
    {
      idParam: 'shipment-dispatch-id',
      filter: (query) => (query.status ? (d: ShipmentDispatch) => d.status === query.status : undefined),
    },
  );
}
