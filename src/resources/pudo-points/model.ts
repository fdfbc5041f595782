import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: PudoOpeningHours */
export type OpeningHours = Schemas['PudoOpeningHours'];

/** contract: PudoPoint (without distanceMeters, which only query results carry). */
export type PudoPoint = Schemas['PudoPoint'];
export type PudoPointType = PudoPoint['type'];
export type PudoService = NonNullable<PudoPoint['services']>[number];

/** contract: PudoPointQuery */
export type PudoPointQueryInput = Schemas['PudoPointQuery'];

/** contract: PudoPointQueryResult */
export type PudoPointQueryResult = Schemas['PudoPointQueryResult'];

/** The carrier data point generation needs (a narrow view of the catalogue's Carrier). */
export interface PudoCarrier {
  id: string;
  code: string;
  name: string;
  countries: string[];
  capabilities: string[];
}
