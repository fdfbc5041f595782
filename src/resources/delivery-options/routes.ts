import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { DeliveryOption } from './model.js';
import type { DeliveryOptionService } from './service.js';

export function deliveryOptionRoutes(options: DeliveryOptionService): HandlerMap {
  return crudRoutes(
    options,
    {
      create: 'createDeliveryOption',
      list: 'listDeliveryOptions',
      get: 'getDeliveryOption',
      replace: 'replaceDeliveryOption',
      remove: 'deleteDeliveryOption',
    },
    {
      idParam: 'delivery-option-id',
      filter: (query) => (typeof query.active === 'boolean' ? (o: DeliveryOption) => o.active === query.active : undefined),
    },
  );
}
