import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { Address } from './model.js';
import type { AddressService } from './service.js';

export function addressRoutes(addresses: AddressService): HandlerMap {
  return crudRoutes(
    addresses,
    { create: 'createAddress', list: 'listAddresses', get: 'getAddress', replace: 'replaceAddress', remove: 'deleteAddress' },
    {
      idParam: 'address-id',
      filter: (query) => (query.country_code ? (a: Address) => a.countryCode === query.country_code : undefined),
    },
  );
}
