import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: DocumentRendering */
export type DocumentRendering = Schemas['DocumentRendering'];

/** contract: ShipmentChannelRequest */
export type ShipmentChannelInput = Schemas['ShipmentChannelRequest'];

/** contract: ShipmentChannel */
export type ShipmentChannel = Schemas['ShipmentChannel'];

/**
 * The resolution documents are rendered at: the channel's, or 203 dpi for ZPL (thermal
 * printers) and 300 dpi otherwise (contract/DECISIONS.md "Shipment Channel rules").
 * @example effectiveResolution({ labelFormat: 'ZPL', labelSize: 'LABEL_4X6' }) // 203
 */
export function effectiveResolution(rendering: DocumentRendering): number {
  return rendering.resolutionDpi ?? (rendering.labelFormat === 'ZPL' ? 203 : 300);
}
