/** contract: ShipmentDispatchRequest */
export interface ShipmentDispatchInput {
  carrierDefinitionId: string;
  shipmentBookingIds: string[];
  pickupDate: string;
  pickupWindowFrom?: string;
  pickupWindowTo?: string;
  pickupAddressId?: string;
  reference?: string;
}

/** contract: ShipmentDispatch — OPEN until its manifest closes it. */
export interface ShipmentDispatch extends ShipmentDispatchInput {
  id: string;
  createdAt: string;
  updatedAt: string;
  status: 'OPEN' | 'CLOSED';
  shipmentManifestId?: string;
}
