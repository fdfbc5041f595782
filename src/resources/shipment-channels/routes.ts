import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { ShipmentChannelService } from './service.js';

export function shipmentChannelRoutes(channels: ShipmentChannelService): HandlerMap {
  return crudRoutes(
    channels,
    {
      create: 'createShipmentChannel',
      list: 'listShipmentChannels',
      get: 'getShipmentChannel',
      replace: 'replaceShipmentChannel',
      remove: 'deleteShipmentChannel',
    },
    { idParam: 'shipment-channel-id' },
  );
}
