import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: ShipmentManifest — the read-only record of a closed Shipment Dispatch. */
export type ShipmentManifest = Schemas['ShipmentManifest'];
