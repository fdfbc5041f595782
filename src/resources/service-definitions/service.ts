import type { DomainDeps, ResourceDeps } from '../shared/domain-deps.js';
import { ProblemError, type Violation } from '../../errors/problem.js';
import type { CarrierDefinitionService } from '../carrier-definitions/service.js';
import { createAccountResources } from '../shared/account-resources.js';
import { duplicateSettingKeys } from '../shared/settings.js';
import type { ServiceDefinition, ServiceDefinitionInput } from './model.js';

export const SERVICE_DEFINITIONS = 'service-definitions';

/**
 * Service Definitions: which catalogue Service an account books through which Carrier
 * Definition (spec: "Carrier Definitions and Service Definitions must exist before a Shipment
 * Booking is created"). The Carrier Definition must be the caller's, the Service one of that
 * definition's carrier, the default Packing Type a catalogue one, and each (Carrier Definition,
 * Service) pair is defined once. Events: SERVICE_DEFINITION CREATED/UPDATED/DELETED.
 *
 * @example
 * const sd = serviceDefinitions.create(accountId, { carrierDefinitionId, serviceId, name: 'DHL Paket' });
 * sd.carrierId // the Carrier Definition's carrier
 */
export function createServiceDefinitionService(core: ResourceDeps & Pick<DomainDeps, 'catalogue'>, carrierDefinitions: CarrierDefinitionService) {
  const { catalogue } = core;

  function violationsOf(accountId: string, input: ServiceDefinitionInput, previous?: ServiceDefinition): Violation[] {
    const violations: Violation[] = [];
    const definition = carrierDefinitions.find(accountId, input.carrierDefinitionId);
    const service = catalogue.service(input.serviceId);
    if (!definition) {
      // The same message for a foreign and a missing id: nothing about other accounts leaks.
      violations.push({ field: 'body/carrierDefinitionId', message: `${input.carrierDefinitionId} is not a Carrier Definition of this account` });
    } else if (!service) {
      violations.push({ field: 'body/serviceId', message: `${input.serviceId} is not a Service of the carrier catalogue (GET /v1/services)` });
    } else if (service.view.carrierId !== definition.carrierId) {
      const carrier = catalogue.carrier(definition.carrierId)?.view;
      violations.push({ field: 'body/serviceId', message: `${service.view.code} is not a Service of ${carrier?.name ?? definition.carrierId}, the carrier of Carrier Definition ${definition.id}` });
    } else {
      const duplicate = base
        .all(accountId)
        .find((sd) => sd.id !== previous?.id && sd.carrierDefinitionId === definition.id && sd.serviceId === service.view.id);
      if (duplicate) {
        violations.push({ field: 'body/serviceId', message: `Service Definition ${duplicate.id} already defines ${service.view.code} for this Carrier Definition` });
      }
    }
    if (input.defaultPackingTypeId !== undefined && !catalogue.packingType(input.defaultPackingTypeId)) {
      violations.push({ field: 'body/defaultPackingTypeId', message: `${input.defaultPackingTypeId} is not a Packing Type of the catalogue (GET /v1/packing-types)` });
    }
    violations.push(...duplicateSettingKeys(input.settings));
    return violations;
  }

  const base = createAccountResources<ServiceDefinitionInput, ServiceDefinition>(core, {
    collection: SERVICE_DEFINITIONS,
    topic: 'SERVICE_DEFINITION',
    label: 'Service Definition',
    check(accountId, input, previous) {
      const violations = violationsOf(accountId, input, previous);
      if (violations.length) {
        throw new ProblemError('rule-violation', { detail: violations.map((v) => `${v.field} ${v.message}`).join('; '), violations });
      }
    },
    build: (input, meta, accountId) => ({
      ...meta,
      carrierDefinitionId: input.carrierDefinitionId,
      carrierId: carrierDefinitions.get(accountId, input.carrierDefinitionId).carrierId,
      serviceId: input.serviceId,
      name: input.name,
      active: input.active ?? true,
      settings: input.settings,
      defaultPackingTypeId: input.defaultPackingTypeId,
    }),
  });

  return {
    ...base,
    /** Ids of the account's Service Definitions that use a Carrier Definition. */
    referencing(accountId: string, carrierDefinitionId: string): string[] {
      return base.all(accountId).filter((sd) => sd.carrierDefinitionId === carrierDefinitionId).map((sd) => sd.id);
    },
  };
}

export type ServiceDefinitionService = ReturnType<typeof createServiceDefinitionService>;
