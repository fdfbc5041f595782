/** contract: CustomsLine */
export interface CustomsLine {
  description: string;
  quantity: number;
  /** Total value of the line in the declaration currency. */
  value: number;
  hsCode?: string;
  originCountryCode?: string;
  /** Total net weight of the line in kg. */
  weight?: number;
}

/** contract: Declarant */
export interface Declarant {
  firstName: string;
  lastName: string;
  city: string;
  email?: string;
  phone?: string;
}

/** contract: CustomsDeclarationRequest (spec: "types, declarant.firstName/lastName/city, currency"). */
export interface CustomsDeclarationInput {
  /** Customs Declaration Type ids of the carrier catalogue. */
  types: string[];
  declarant: Declarant;
  currency: string;
  contentType?: 'SALE_OF_GOODS' | 'GIFT' | 'DOCUMENTS' | 'RETURNED_GOODS' | 'SAMPLE';
  incoterm?: 'DAP' | 'DDP' | 'EXW' | 'FCA' | 'CPT';
  invoiceNumber?: string;
  lines?: CustomsLine[];
}

/** contract: CustomsDeclaration */
export interface CustomsDeclaration extends CustomsDeclarationInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}
