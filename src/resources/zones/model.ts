import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: PostalCodeRange (inclusive bounds). */
export type PostalCodeRange = Schemas['PostalCodeRange'];

/** contract: ZoneRequest (contract/DECISIONS.md "Zone fields and level"). */
export type ZoneInput = Schemas['ZoneRequest'];

/** contract: Zone */
export type Zone = Schemas['Zone'];

/** A destination tested against zones. */
export interface Destination {
  countryCode: string;
  postalCode: string;
}
