/** contract: ShipmentManifest — the read-only record of a closed Shipment Dispatch. */
export interface ShipmentManifest {
  id: string;
  createdAt: string;
  updatedAt: string;
  shipmentDispatchId: string;
  carrierDefinitionId: string;
  carrierId: string;
  shipmentBookingIds: string[];
  parcelCount: number;
  /** Sum of the parcel weights in kg (LB converted). */
  totalWeightKg: number;
  /** The MANIFEST Document (PDF). */
  documentId: string;
}
