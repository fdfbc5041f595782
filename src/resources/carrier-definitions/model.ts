import type { components } from '../../client/schema.js';
import type { Setting } from '../shared/settings.js';

type Schemas = components['schemas'];

/** contract: CarrierDefinitionRequest (v0 and v1 share it). */
export type CarrierDefinitionInput = Schemas['CarrierDefinitionRequest'];

/** contract: CarrierDefinition; `mode` is always the effective mode. */
export type CarrierDefinition = Schemas['CarrierDefinition'];
export type CarrierMode = CarrierDefinition['mode'];

/** contract: CarrierDefinitionPage (the v0 list envelope). */
export type CarrierDefinitionPage = Schemas['CarrierDefinitionPage'];

/** Spec, Carrier Definition mode: "(none) | create | mode omitted | STAGING". */
export function effectiveMode(mode: CarrierDefinitionInput['mode']): CarrierMode {
  return mode === 'PRODUCTION' ? 'PRODUCTION' : 'STAGING';
}
