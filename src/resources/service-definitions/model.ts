import type { Setting } from '../shared/settings.js';

/** contract: ServiceDefinitionRequest */
export interface ServiceDefinitionInput {
  carrierDefinitionId: string;
  serviceId: string;
  name: string;
  active?: boolean;
  settings?: Setting[];
  defaultPackingTypeId?: string;
}

/** contract: ServiceDefinition; carrierId is derived from the Carrier Definition. */
export interface ServiceDefinition {
  id: string;
  createdAt: string;
  updatedAt: string;
  carrierDefinitionId: string;
  carrierId: string;
  serviceId: string;
  name: string;
  active: boolean;
  settings?: Setting[];
  defaultPackingTypeId?: string;
}
