import type { components } from '../../client/schema.js';
import type { Setting } from '../shared/settings.js';

type Schemas = components['schemas'];

/** contract: ServiceDefinitionRequest */
export type ServiceDefinitionInput = Schemas['ServiceDefinitionRequest'];

/** contract: ServiceDefinition; carrierId is derived from the Carrier Definition. */
export type ServiceDefinition = Schemas['ServiceDefinition'];
