/** contract: DocumentRendering */
export interface DocumentRendering {
  labelFormat: 'PDF' | 'PNG' | 'ZPL';
  labelSize: 'A4' | 'A6' | 'LABEL_4X6';
  resolutionDpi?: 150 | 203 | 300 | 600;
}

/** contract: ShipmentChannelRequest */
export interface ShipmentChannelInput {
  name: string;
  documentRendering: DocumentRendering;
  units?: { weightUnit: 'KG' | 'LB'; dimensionUnit: 'CM' | 'IN' };
  customs?: { currency?: string; incoterm?: 'DAP' | 'DDP' | 'EXW' | 'FCA' | 'CPT'; contentType?: 'SALE_OF_GOODS' | 'GIFT' | 'DOCUMENTS' | 'RETURNED_GOODS' | 'SAMPLE' };
  default?: boolean;
}

/** contract: ShipmentChannel */
export interface ShipmentChannel extends Omit<ShipmentChannelInput, 'default'> {
  id: string;
  createdAt: string;
  updatedAt: string;
  accountId: string;
  default: boolean;
}

/**
 * The resolution documents are rendered at: the channel's, or 203 dpi for ZPL (thermal
 * printers) and 300 dpi otherwise (contract/DECISIONS.md "Shipment Channel rules").
 * @example effectiveResolution({ labelFormat: 'ZPL', labelSize: 'LABEL_4X6' }) // 203
 */
export function effectiveResolution(rendering: DocumentRendering): number {
  return rendering.resolutionDpi ?? (rendering.labelFormat === 'ZPL' ? 203 : 300);
}
