import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: ShipmentDispatchRequest */
export type ShipmentDispatchInput = Schemas['ShipmentDispatchRequest'];

/** contract: ShipmentDispatch — OPEN until its manifest closes it. */
export type ShipmentDispatch = Schemas['ShipmentDispatch'];
