import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { ParcelItem } from './model.js';
import type { ParcelItemService } from './service.js';

export function parcelItemRoutes(items: ParcelItemService): HandlerMap {
  return crudRoutes(
    items,
    { create: 'createParcelItem', list: 'listParcelItems', get: 'getParcelItem', replace: 'replaceParcelItem', remove: 'deleteParcelItem' },
    {
      idParam: 'item-id',
      filter: (query) => (query.parcel_id ? (item: ParcelItem) => item.parcelId === query.parcel_id : undefined),
    },
  );
}
