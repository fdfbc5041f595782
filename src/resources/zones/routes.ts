import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { Zone } from './model.js';
import type { ZoneService } from './service.js';

export function zoneRoutes(zones: ZoneService): HandlerMap {
  return crudRoutes(
    zones,
    { create: 'createZone', list: 'listZones', get: 'getZone', replace: 'replaceZone', remove: 'deleteZone' },
    {
      idParam: 'zone-id',
      filter: ({ country_code: country }) => (country ? (zone: Zone) => zone.countryCodes.includes(country) : undefined),
    },
  );
}
