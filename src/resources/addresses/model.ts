import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** Address: role-neutral and reusable (spec, "What the service does"). Fields: contract AddressRequest. */
export type AddressInput = Schemas['AddressRequest'];

export type Address = Schemas['Address'];
