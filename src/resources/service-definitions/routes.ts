import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { ServiceDefinition } from './model.js';
import type { ServiceDefinitionService } from './service.js';

export function serviceDefinitionRoutes(serviceDefinitions: ServiceDefinitionService): HandlerMap {
  return crudRoutes(
    serviceDefinitions,
    {
      create: 'createServiceDefinition',
      list: 'listServiceDefinitions',
      get: 'getServiceDefinition',
      replace: 'replaceServiceDefinition',
      remove: 'deleteServiceDefinition',
    },
    {
      idParam: 'service-definition-id',
      filter: (query) => {
        const { carrier_definition_id: carrierDefinitionId, service_id: serviceId } = query;
        if (carrierDefinitionId === undefined && serviceId === undefined) return undefined;
        return (sd: ServiceDefinition) =>
          (carrierDefinitionId === undefined || sd.carrierDefinitionId === carrierDefinitionId) && (serviceId === undefined || sd.serviceId === serviceId);
      },
    },
  );
}
