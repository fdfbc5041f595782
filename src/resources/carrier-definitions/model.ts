import type { Setting } from '../shared/settings.js';

export type CarrierMode = 'STAGING' | 'PRODUCTION';

/** contract: CarrierDefinitionRequest (v0 and v1 share it). */
export interface CarrierDefinitionInput {
  carrierId: string;
  name: string;
  group?: string;
  /** Omitted or '' means STAGING (the published pattern accepts the empty string). */
  mode?: CarrierMode | '';
  settings?: Setting[];
}

/** contract: CarrierDefinition; `mode` is always the effective mode. */
export interface CarrierDefinition {
  id: string;
  createdAt: string;
  updatedAt: string;
  carrierId: string;
  name: string;
  group?: string;
  mode: CarrierMode;
  settings?: Setting[];
}

/** contract: CarrierDefinitionPage (the v0 list envelope). */
export interface CarrierDefinitionPage {
  currentPage: number;
  items: CarrierDefinition[];
  pageSize: number;
  totalPages: number;
}

/** Spec, Carrier Definition mode: "(none) | create | mode omitted | STAGING". */
export function effectiveMode(mode: CarrierDefinitionInput['mode']): CarrierMode {
  return mode === 'PRODUCTION' ? 'PRODUCTION' : 'STAGING';
}
