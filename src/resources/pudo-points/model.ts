import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: PudoOpeningHours */
export interface OpeningHours {
  dayOfWeek: 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';
  opensAt: string;
  closesAt: string;
}

export type PudoPointType = 'PARCEL_SHOP' | 'LOCKER' | 'POST_OFFICE';
export type PudoService = 'DROP_OFF' | 'PICKUP' | 'RETURNS';

/** contract: PudoPoint (without distanceMeters, which only query results carry). */
export type PudoPoint = Schemas['PudoPoint'];

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
