/** contract: DangerousGoodsDeclarationRequest (contract/DECISIONS.md "Dangerous Goods Declaration path and fields"). */
export interface DangerousGoodsDeclarationInput {
  /** A Dangerous Goods Declaration Type of the carrier catalogue. */
  typeId: string;
  unNumber: string;
  properShippingName: string;
  hazardClass?: string;
  packingGroup?: 'I' | 'II' | 'III';
  quantity: number;
  quantityUnit: 'KG' | 'L' | 'G' | 'ML';
  parcelId?: string;
  emergencyContact?: { name: string; phone: string };
}

/** contract: DangerousGoodsDeclaration */
export interface DangerousGoodsDeclaration extends DangerousGoodsDeclarationInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}
